package dev.sluice.protocol;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/** Reads the golden captures in {@code src/test/resources/golden/} (see the README there). */
public final class Golden {
    /** One frame: its direction ({@code '<'} from the server), sequence id and payload. */
    public record Frame(char direction, int sequenceId, byte[] payload, byte[] wire) {
        public boolean fromServer() {
            return direction == '<';
        }
    }

    private Golden() {}

    public static List<Frame> frames(String name) {
        try (InputStream in = Golden.class.getResourceAsStream("/golden/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no golden file " + name);
            }
            List<Frame> frames = new ArrayList<>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n")) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                byte[] wire = HexFormat.of().parseHex(line.substring(2).trim());
                int length = (wire[0] & 0xFF) | (wire[1] & 0xFF) << 8 | (wire[2] & 0xFF) << 16;
                if (length != wire.length - 4) {
                    throw new IllegalStateException(name + ": frame length " + length + " vs " + (wire.length - 4));
                }
                byte[] payload = new byte[length];
                System.arraycopy(wire, 4, payload, 0, length);
                frames.add(new Frame(line.charAt(0), wire[3] & 0xFF, payload, wire));
            }
            return frames;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The payloads of the frames the server sent. */
    public static List<byte[]> fromServer(String name) {
        return frames(name).stream().filter(Frame::fromServer).map(Frame::payload).toList();
    }

    /** The payloads of the frames the client sent. */
    public static List<byte[]> fromClient(String name) {
        return frames(name).stream().filter(f -> !f.fromServer()).map(Frame::payload).toList();
    }
}
