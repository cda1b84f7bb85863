package dev.sluice.protocol.golden;

import io.netty.buffer.ByteBufUtil;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Records one real client's conversation with a server, frame by frame, in the golden format.
 * Not a test: run by hand, then point a client (e.g. the {@code mariadb} CLI) at the listen port.
 *
 * <pre>
 * java -cp … dev.sluice.protocol.golden.GoldenRelay 3398 127.0.0.1 3399 OUT.hex "comment"
 * </pre>
 */
public final class GoldenRelay {
    private final List<String> log = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        new GoldenRelay().run(Integer.parseInt(args[0]), args[1], Integer.parseInt(args[2]), Path.of(args[3]),
                args[4]);
    }

    private void run(int listenPort, String host, int port, Path out, String comment) throws Exception {
        log.add("# " + comment);
        try (ServerSocket server = new ServerSocket(listenPort, 1, InetAddress.getLoopbackAddress());
                Socket client = server.accept();
                Socket backend = new Socket(host, port)) {
            Thread up = new Thread(() -> pipe(client, backend, "> "));
            up.start();
            pipe(backend, client, "< ");
            up.join();
        }
        Files.write(out, log);
    }

    private void pipe(Socket from, Socket to, String direction) {
        try {
            DataInputStream in = new DataInputStream(from.getInputStream());
            OutputStream out = to.getOutputStream();
            while (true) {
                byte[] header = new byte[4];
                in.readFully(header);
                int length = (header[0] & 0xFF) | (header[1] & 0xFF) << 8 | (header[2] & 0xFF) << 16;
                byte[] payload = new byte[length];
                in.readFully(payload);
                synchronized (log) {
                    log.add(direction + ByteBufUtil.hexDump(header) + ByteBufUtil.hexDump(payload));
                }
                out.write(header);
                out.write(payload);
                out.flush();
            }
        } catch (IOException endOfStream) {
            try {
                to.shutdownOutput();
            } catch (IOException ignored) {
                // the other side is gone already
            }
        }
    }
}
