package dev.sluice.it.support;

import static dev.sluice.protocol.Command.COM_STMT_EXECUTE;
import static dev.sluice.protocol.Command.COM_STMT_PREPARE;
import static dev.sluice.protocol.Command.COM_STMT_RESET;

import dev.sluice.it.support.RawMysqlClient.RawPacket;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Server-side prepared statements over a {@link RawMysqlClient}: PREPARE, EXECUTE and RESET as
 * single commands, in an order a test chooses (a driver decides for itself when to send them).
 * Statements without parameters only; results are read as strings, so select strings
 * ({@code CONCAT(@@server_id)}).
 */
public final class RawStatements {
    private static final int NO_CURSOR = 0;
    private static final int ITERATIONS = 1;
    /** Binary rows start with a null bitmap whose first two bits are reserved. */
    private static final int NULL_BITMAP_OFFSET = 2;

    private final RawMysqlClient client;

    public RawStatements(RawMysqlClient client) {
        this.client = client;
    }

    /** Prepares {@code sql}; returns the statement id the proxy (or server) gave. */
    public int prepare(String sql) throws IOException {
        client.sendCommand(COM_STMT_PREPARE, sql.getBytes(StandardCharsets.UTF_8));
        RawPacket ok = client.readPacket();
        if (ok.isErr()) {
            throw new RawMysqlClient.ServerErrorException(ok);
        }
        ByteBuffer b = ByteBuffer.wrap(ok.payload()).order(ByteOrder.LITTLE_ENDIAN);
        int id = b.getInt(1);
        int columns = Short.toUnsignedInt(b.getShort(5));
        int params = Short.toUnsignedInt(b.getShort(7));
        skipDefinitions(params);
        skipDefinitions(columns);
        return id;
    }

    private void skipDefinitions(int n) throws IOException {
        if (n == 0) {
            return;
        }
        for (int i = 0; i < n; i++) {
            client.readPacket();
        }
        RawPacket eof = client.readPacket();
        if (!eof.isEof()) {
            throw new IOException("expected EOF after definitions, got " + eof);
        }
    }

    /** Executes statement {@code id} and returns its rows, every column read as a string. */
    public List<List<String>> execute(int id) throws IOException {
        ByteBuffer arg = ByteBuffer.allocate(9).order(ByteOrder.LITTLE_ENDIAN);
        arg.putInt(id).put((byte) NO_CURSOR).putInt(ITERATIONS);
        client.sendCommand(COM_STMT_EXECUTE, arg.array());
        RawPacket first = client.readPacket();
        if (first.isErr()) {
            throw new RawMysqlClient.ServerErrorException(first);
        }
        if (first.isOk()) {
            return List.of();
        }
        int columns = (int) RawMysqlClient.lenenc(first.payload(), new int[] {0});
        skipDefinitions(columns);
        List<List<String>> rows = new ArrayList<>();
        while (true) {
            RawPacket p = client.readPacket();
            if (p.isErr()) {
                throw new RawMysqlClient.ServerErrorException(p);
            }
            if (p.isEof()) {
                return rows;
            }
            rows.add(stringRow(p.payload(), columns));
        }
    }

    private static List<String> stringRow(byte[] payload, int columns) {
        int bitmap = (columns + 7 + NULL_BITMAP_OFFSET) / 8;
        int[] pos = {1 + bitmap};
        List<String> row = new ArrayList<>(columns);
        for (int i = 0; i < columns; i++) {
            int bit = i + NULL_BITMAP_OFFSET;
            if ((payload[1 + bit / 8] & (1 << (bit % 8))) != 0) {
                row.add(null);
                continue;
            }
            int len = (int) RawMysqlClient.lenenc(payload, pos);
            row.add(new String(payload, pos[0], len, StandardCharsets.UTF_8));
            pos[0] += len;
        }
        return row;
    }

    /** COM_STMT_RESET of statement {@code id}; throws on ERR. */
    public void reset(int id) throws IOException {
        client.sendCommand(COM_STMT_RESET, ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(id).array());
        RawPacket answer = client.readPacket();
        if (answer.isErr()) {
            throw new RawMysqlClient.ServerErrorException(answer);
        }
    }
}
