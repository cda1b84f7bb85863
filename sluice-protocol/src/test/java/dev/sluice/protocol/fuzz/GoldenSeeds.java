package dev.sluice.protocol.fuzz;

import dev.sluice.protocol.Golden;
import dev.sluice.protocol.Golden.Frame;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Seed inputs for the fuzz targets, cut from the packets a real MariaDB 10.11 exchanged with real
 * clients ({@code src/test/resources/golden/}, see its README): starting from valid packets, the
 * fuzzer reaches the deep branches of each decoder in seconds instead of hours.
 */
final class GoldenSeeds {
    /** Every capture in {@code golden/}. */
    static final List<String> FILES = List.of("auth-switch.hex", "cli-session.hex", "err-access-denied.hex",
            "err-no-such-table.hex", "login-native.hex", "multi-result-deprecate-eof.hex",
            "ok-info-no-session-track.hex", "ok-info-session-track.hex", "ok-last-gtid.hex",
            "ok-session-state.hex", "prepare-deprecate-eof.hex", "prepare-eof.hex", "resultset-deprecate-eof.hex",
            "resultset-eof.hex", "resultset-mariadb-extended.hex");

    /**
     * One command and the server's answer to it, as they crossed the wire (headers included).
     *
     * @param command the command byte (COM_QUERY is 0x03)
     * @param response the server's frames, concatenated
     */
    record Exchange(int command, byte[] response) {
    }

    private GoldenSeeds() {
    }

    static List<Frame> frames() {
        List<Frame> frames = new ArrayList<>();
        FILES.forEach(file -> frames.addAll(Golden.frames(file)));
        return frames;
    }

    /** The payload of every captured frame, both directions. */
    static List<byte[]> payloads() {
        return frames().stream().map(Frame::payload).toList();
    }

    /** The payload of every frame the server sent. */
    static List<byte[]> serverPayloads() {
        return frames().stream().filter(Frame::fromServer).map(Frame::payload).toList();
    }

    /** All frames of each capture, headers included, as one byte stream per file and direction. */
    static List<byte[]> wireStreams() {
        List<byte[]> streams = new ArrayList<>();
        for (String file : FILES) {
            ByteArrayOutputStream fromServer = new ByteArrayOutputStream();
            ByteArrayOutputStream fromClient = new ByteArrayOutputStream();
            for (Frame f : Golden.frames(file)) {
                (f.fromServer() ? fromServer : fromClient).writeBytes(f.wire());
            }
            streams.add(fromServer.toByteArray());
            streams.add(fromClient.toByteArray());
        }
        return streams;
    }

    /**
     * The commands of the command phase (a client frame with sequence id 0 starts one) and what the
     * server answered; the login exchange before the first command is left out.
     */
    static List<Exchange> exchanges() {
        List<Exchange> exchanges = new ArrayList<>();
        for (String file : FILES) {
            int command = -1;
            ByteArrayOutputStream response = new ByteArrayOutputStream();
            for (Frame f : Golden.frames(file)) {
                if (!f.fromServer() && f.sequenceId() == 0 && f.payload().length > 0) {
                    if (command >= 0 && response.size() > 0) {
                        exchanges.add(new Exchange(command, response.toByteArray()));
                    }
                    command = f.payload()[0] & 0xFF;
                    response.reset();
                } else if (f.fromServer() && command >= 0) {
                    response.writeBytes(f.wire());
                }
            }
            if (command >= 0 && response.size() > 0) {
                exchanges.add(new Exchange(command, response.toByteArray()));
            }
        }
        return exchanges;
    }

    /** {@code header} followed by {@code body}: a fuzz input whose first bytes pick the variant. */
    static byte[] prefixed(byte[] body, int... header) {
        byte[] out = new byte[header.length + body.length];
        for (int i = 0; i < header.length; i++) {
            out[i] = (byte) header[i];
        }
        System.arraycopy(body, 0, out, header.length, body.length);
        return out;
    }
}
