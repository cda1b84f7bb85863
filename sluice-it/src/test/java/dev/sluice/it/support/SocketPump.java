package dev.sluice.it.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;

/** One direction of a test's TCP relay: a thread copying what one socket receives to another. */
public final class SocketPump {
    private static final int BUFFER = 16 * 1024;

    private SocketPump() {
    }

    /**
     * Copies {@code from}'s bytes to {@code to} until either side goes away, then closes both.
     * What passes is also appended to {@code recording}, unless it is null.
     */
    public static void start(Socket from, Socket to, String threadName, ByteArrayOutputStream recording)
            throws IOException {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        Thread t = new Thread(() -> {
            byte[] buf = new byte[BUFFER];
            try {
                int n;
                while ((n = in.read(buf)) > 0) {
                    if (recording != null) {
                        synchronized (recording) {
                            recording.write(buf, 0, n);
                        }
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side went away
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, threadName);
        t.setDaemon(true);
        t.start();
    }

    public static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
