package dev.sluice.server.frontend;

import dev.sluice.protocol.Command;
import dev.sluice.protocol.LengthEncoded;
import dev.sluice.protocol.response.PrepareOk;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The client's end of a session: commands written as a driver would, answers read packet by
 * packet. A client can also stall (stop taking bytes), as a slow reader over a full socket does.
 */
final class ClientEnd {
    final EmbeddedChannel channel;
    private final ByteBuf answers = Unpooled.buffer();
    private final Stall stall = new Stall();
    private int lastSequenceId = -1;

    ClientEnd(EmbeddedChannel channel) {
        this.channel = channel;
        channel.pipeline().addFirst(stall);
    }

    // ---- commands -----------------------------------------------------------------------------

    /** The client sends a command packet: sequence id 0, then the command byte and its argument. */
    void send(int command, byte[] argument) {
        ByteBuf frame = Unpooled.buffer(4 + 1 + argument.length);
        frame.writeMediumLE(1 + argument.length).writeByte(0).writeByte(command).writeBytes(argument);
        raw(frame);
    }

    /** The client's next frame, bytes as they are (a broken packet, say). */
    void raw(ByteBuf bytes) {
        channel.writeInbound(bytes);
        channel.runPendingTasks();
    }

    /** A packet of a command already under way (LOCAL INFILE data), with its sequence id. */
    void sendContinuation(int sequenceId, byte[] payload) {
        raw(Unpooled.buffer(4 + payload.length).writeMediumLE(payload.length).writeByte(sequenceId)
                .writeBytes(payload));
    }

    void query(String sql) {
        send(Command.COM_QUERY, sql.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Several queries arriving in one read, as a pipelining driver sends them: the session gets
     * them one frame after the other before any answer goes out.
     */
    void pipeline(String... sqls) {
        Object[] frames = new Object[sqls.length];
        for (int i = 0; i < sqls.length; i++) {
            byte[] text = sqls[i].getBytes(StandardCharsets.UTF_8);
            frames[i] = Unpooled.buffer(5 + text.length).writeMediumLE(1 + text.length).writeByte(0)
                    .writeByte(Command.COM_QUERY).writeBytes(text);
        }
        channel.writeInbound(frames);
        channel.runPendingTasks();
    }

    void prepare(String sql) {
        send(Command.COM_STMT_PREPARE, sql.getBytes(StandardCharsets.UTF_8));
    }

    /** COM_STMT_EXECUTE of a statement without parameters, no cursor. */
    void execute(long statementId) {
        send(Command.COM_STMT_EXECUTE, statementArgument(statementId, 0, 1, 0, 0, 0));
    }

    void closeStatement(long statementId) {
        send(Command.COM_STMT_CLOSE, statementArgument(statementId));
    }

    void ping() {
        send(Command.COM_PING, new byte[0]);
    }

    void initDb(String schema) {
        send(Command.COM_INIT_DB, schema.getBytes(StandardCharsets.UTF_8));
    }

    void quit() {
        send(Command.COM_QUIT, new byte[0]);
    }

    void resetConnection() {
        send(Command.COM_RESET_CONNECTION, new byte[0]);
    }

    static byte[] statementArgument(long statementId, int... more) {
        byte[] out = new byte[4 + more.length];
        for (int i = 0; i < 4; i++) {
            out[i] = (byte) (statementId >>> (8 * i));
        }
        for (int i = 0; i < more.length; i++) {
            out[4 + i] = (byte) more[i];
        }
        return out;
    }

    // ---- answers ------------------------------------------------------------------------------

    /** Whether the client has been sent a whole packet it has not read yet. */
    boolean hasAnswer() {
        collect();
        return answers.readableBytes() >= 4 && answers.readableBytes() >= 4 + answers.getUnsignedMediumLE(
                answers.readerIndex());
    }

    /** Bytes the client has received and not read yet. */
    int unreadBytes() {
        collect();
        return answers.readableBytes();
    }

    private void collect() {
        channel.runPendingTasks();
        for (Object m = channel.readOutbound(); m != null; m = channel.readOutbound()) {
            ByteBuf b = (ByteBuf) m;
            answers.writeBytes(b);
            b.release();
        }
    }

    /** The next packet the client got: its payload. */
    byte[] packet() {
        if (!hasAnswer()) {
            throw new AssertionError("the client got nothing (more)");
        }
        int length = answers.readUnsignedMediumLE();
        lastSequenceId = answers.readUnsignedByte();
        byte[] payload = new byte[length];
        answers.readBytes(payload);
        answers.discardReadBytes();
        return payload;
    }

    /** Every whole packet the client has and has not read yet, in order. */
    List<Packet> packets() {
        List<Packet> out = new ArrayList<>();
        while (hasAnswer()) {
            byte[] payload = packet();
            out.add(new Packet(lastSequenceId, payload));
        }
        return out;
    }

    record Packet(int sequenceId, byte[] payload) {
        int first() {
            return payload[0] & 0xFF;
        }
    }

    /** The sequence id of the packet read last. */
    int lastSequenceId() {
        return lastSequenceId;
    }

    /** The client's next answer is an OK; returns its payload. */
    byte[] ok() {
        byte[] p = packet();
        if (p[0] != 0) {
            throw new AssertionError("expected OK, got " + HexFormat.of().formatHex(p));
        }
        return p;
    }

    /**
     * The client's next answer is an ERR; returns its error code and message as MariaDB Connector/C
     * reports them. That library takes an ERR carrying one of its own client error numbers
     * (2001-2061, 2013 "Lost connection" among them) for a malformed packet and reports 2027
     * instead, without the message: sysbench and the mariadb client see only that.
     */
    String error() {
        byte[] p = packet();
        if ((p[0] & 0xFF) != 0xFF) {
            throw new AssertionError("expected ERR, got " + HexFormat.of().formatHex(p));
        }
        int code = (p[1] & 0xFF) | (p[2] & 0xFF) << 8;
        if (code > CONNECTOR_C_FIRST_ERROR && code <= CONNECTOR_C_LAST_ERROR) {
            return CR_MALFORMED_PACKET + " Received malformed packet";
        }
        return code + " " + new String(p, 9, p.length - 9, StandardCharsets.UTF_8);
    }

    /** Connector/C 3.3 (libmariadb of MariaDB 10.11) passes 2000 and 2062 on; every number between, not. */
    private static final int CONNECTOR_C_FIRST_ERROR = 2000;
    private static final int CONNECTOR_C_LAST_ERROR = 2061;
    private static final int CR_MALFORMED_PACKET = 2027;

    /** The client's next answer is a PREPARE_OK (DEPRECATE_EOF); returns the statement id the client got. */
    long prepared() {
        byte[] p = packet();
        if (p[0] != 0 || p.length < 12) {
            throw new AssertionError("expected PREPARE_OK, got " + HexFormat.of().formatHex(p));
        }
        PrepareOk ok = PrepareOk.decode(Unpooled.wrappedBuffer(p));
        for (int i = 0; i < ok.parameterCount() + ok.columnCount(); i++) {
            packet();
        }
        return ok.statementId();
    }

    /** The client's next answer is a text result set (DEPRECATE_EOF); returns its rows. */
    List<List<String>> rows() {
        return rows(false);
    }

    /** A text result set laid out for a client without CLIENT_DEPRECATE_EOF: an EOF after the columns too. */
    List<List<String>> rowsBetweenEofs() {
        return rows(true);
    }

    private List<List<String>> rows(boolean eofAfterColumns) {
        byte[] first = packet();
        int columns = (int) LengthEncoded.getIntegerAt(Unpooled.wrappedBuffer(first), 0);
        for (int i = 0; i < columns; i++) {
            packet();
        }
        if (eofAfterColumns) {
            packet();
        }
        List<List<String>> rows = new ArrayList<>();
        while (true) {
            byte[] p = packet();
            if ((p[0] & 0xFF) == 0xFE && p.length < 0xFFFFFF) {
                return rows;
            }
            ByteBuf row = Unpooled.wrappedBuffer(p);
            List<String> values = new ArrayList<>();
            for (int c = 0; c < columns; c++) {
                if (row.getUnsignedByte(row.readerIndex()) == 0xFB) {
                    row.skipBytes(1);
                    values.add(null);
                } else {
                    values.add(LengthEncoded.readString(row, "value"));
                }
            }
            rows.add(values);
        }
    }

    /** The column names of the client's next answer, a text result set, then its rows are skipped. */
    List<String> columnNames() {
        byte[] first = packet();
        int columns = (int) LengthEncoded.getIntegerAt(Unpooled.wrappedBuffer(first), 0);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < columns; i++) {
            ByteBuf def = Unpooled.wrappedBuffer(packet());
            for (int field = 0; field < 4; field++) {
                LengthEncoded.readString(def, "field");
            }
            names.add(LengthEncoded.readString(def, "name"));
        }
        while ((packet()[0] & 0xFF) != 0xFE) {
            // rows
        }
        return names;
    }

    // ---- a slow client ------------------------------------------------------------------------

    /**
     * From now on the client takes no more bytes: what the session writes stays in the channel's
     * outbound buffer, which turns unwritable past {@code highWaterMark} bytes.
     */
    void stall(int highWaterMark) {
        channel.config().setWriteBufferWaterMark(new WriteBufferWaterMark(highWaterMark / 2, highWaterMark));
        stall.stalled = true;
    }

    /** The client reads again: everything held is delivered and the channel turns writable. */
    void resume() {
        stall.stalled = false;
        channel.flush();
        channel.runPendingTasks();
    }

    boolean writable() {
        return channel.isWritable();
    }

    boolean isOpen() {
        return channel.isOpen();
    }

    void release() {
        collect();
        answers.release();
    }

    /** Holds flushes while the client is stalled, so that written bytes stay pending in Netty. */
    private static final class Stall extends ChannelOutboundHandlerAdapter {
        boolean stalled;

        @Override
        public void flush(ChannelHandlerContext ctx) {
            if (!stalled) {
                ctx.flush();
            }
        }
    }
}
