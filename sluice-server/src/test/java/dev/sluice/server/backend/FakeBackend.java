package dev.sluice.server.backend;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.Command;
import dev.sluice.protocol.LengthEncoded;
import dev.sluice.protocol.ServerStatus;
import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.response.ErrPacket;
import dev.sluice.protocol.response.ColumnDefinition;
import dev.sluice.protocol.response.OkPacket;
import dev.sluice.protocol.response.PrepareOk;
import dev.sluice.protocol.response.SessionStateChange;
import dev.sluice.protocol.response.TextResultWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

/**
 * One backend connection played by the test: what the session sent is read command by command
 * ({@link #take()}), and answers are written as the server would ({@link #ok()}, {@link #rows},
 * {@link #error}…), in the order of the commands. Sluice's own setup of a connection (the GTID
 * tracking request, a replayed SET …) is read like any command; {@link #takeClientCommand()}
 * answers those with OK on its way.
 */
public final class FakeBackend {
    /** Statements Sluice sends on its own to set a connection up. */
    private static final List<String> SETUP = List.of("SET SESSION session_track_system_variables",
            "SET SESSION session_track_gtids", "SET autocommit=1");

    private final BackendConnection connection;
    private final EmbeddedChannel channel;
    private final LoginRequest login;
    private final ByteBuf written = Unpooled.buffer();
    private final Runnable sessionTasks;
    private final Stall stall = new Stall();

    FakeBackend(BackendConnection connection, EmbeddedChannel channel, LoginRequest login, Runnable sessionTasks) {
        this.connection = connection;
        this.channel = channel;
        channel.pipeline().addFirst(stall);
        this.login = login;
        this.sessionTasks = sessionTasks;
    }

    public String node() {
        return connection.nodeName();
    }

    public BackendConnection connection() {
        return connection;
    }

    /** What the session logged in with on the client's behalf. */
    public LoginRequest login() {
        return login;
    }

    private void collect() {
        sessionTasks.run();
        channel.runPendingTasks();
        for (Object m = channel.readOutbound(); m != null; m = channel.readOutbound()) {
            ByteBuf b = (ByteBuf) m;
            written.writeBytes(b);
            b.release();
        }
    }

    /** Whether a whole command is waiting to be read. */
    public boolean hasCommand() {
        collect();
        return written.readableBytes() >= Packets.HEADER_SIZE
                && written.readableBytes() >= Packets.HEADER_SIZE + Packets.payloadLength(written, written.readerIndex());
    }

    /**
     * The next command the session sent, as text: a COM_QUERY's SQL, otherwise the command's name
     * and the rest of the packet in hexadecimal ({@code "COM_STMT_EXECUTE 01000000…"}).
     */
    public String take() {
        byte[] payload = takePayload();
        int command = payload[0] & 0xFF;
        if (command == Command.COM_QUERY) {
            return new String(payload, 1, payload.length - 1, StandardCharsets.UTF_8);
        }
        return Command.name(command) + " " + HexFormat.of().formatHex(payload, 1, payload.length);
    }

    /** The next command's payload, bytes as sent (one physical packet). */
    public byte[] takePayload() {
        if (!hasCommand()) {
            throw new AssertionError("the session sent nothing (more) to " + node());
        }
        int length = Packets.payloadLength(written, written.readerIndex());
        written.skipBytes(Packets.HEADER_SIZE);
        byte[] payload = new byte[length];
        written.readBytes(payload);
        written.discardReadBytes();
        return payload;
    }

    /** The next command that is not Sluice's own setup of the connection; setup commands are answered OK. */
    public String takeClientCommand() {
        while (true) {
            String command = take();
            if (SETUP.stream().noneMatch(command::startsWith)) {
                return command;
            }
            ok();
        }
    }

    /** Answers every command sent so far with OK. */
    public void okAll() {
        while (hasCommand()) {
            take();
            ok();
        }
    }

    private long capabilities() {
        return connection.capabilities();
    }

    private void answer(ByteBuf packets) {
        connection.onRead(packets);
        connection.onReadComplete();
        sessionTasks.run();
    }

    public void ok() {
        ok(ServerStatus.AUTOCOMMIT);
    }

    public void ok(int status) {
        okPacket(new OkPacket(0, 0, status, 0, "", List.of()));
    }

    /** The OK of a commit the server tracked: it reports the transaction's GTID (session tracking). */
    public void okCommitted(String gtid) {
        okPacket(new OkPacket(1, 0, ServerStatus.AUTOCOMMIT | ServerStatus.SESSION_STATE_CHANGED, 0, "",
                List.of(new SessionStateChange.SystemVariable("last_gtid", gtid))));
    }

    public void okPacket(OkPacket ok) {
        ByteBuf out = Unpooled.buffer();
        ok.encode(out, 1, capabilities());
        answer(out);
    }

    public void error(int code, String sqlState, String message) {
        ByteBuf out = Unpooled.buffer();
        new ErrPacket(code, sqlState, message).encode(out, 1, capabilities());
        answer(out);
    }

    /** A text result set of string columns; {@code null} values are SQL NULL. */
    public void rows(List<String> columns, List<List<String>> rows) {
        rows(columns, rows, ServerStatus.AUTOCOMMIT);
    }

    public void rows(List<String> columns, List<List<String>> rows, int status) {
        ByteBuf out = Unpooled.buffer();
        TextResultWriter.write(out, 1, capabilities(), status, columns, rows);
        answer(out);
    }

    /**
     * A result set without its last packet: columns and rows are answered, the end is returned for
     * the test to send later with {@link #partial}.
     */
    public ByteBuf rowsWithoutEnd(List<String> columns, List<List<String>> rows) {
        ByteBuf out = Unpooled.buffer();
        TextResultWriter.write(out, 1, capabilities(), ServerStatus.AUTOCOMMIT, columns, rows);
        int last = 0;
        for (int at = 0; at < out.writerIndex(); at += Packets.HEADER_SIZE + Packets.payloadLength(out, at)) {
            last = at;
        }
        ByteBuf end = out.copy(last, out.writerIndex() - last);
        out.writerIndex(last);
        answer(out);
        return end;
    }

    /** COM_STMT_PREPARE answered: PREPARE_OK with this server-side id, then the definitions. */
    public void prepareOk(long statementId, int parameters, int columns) {
        ByteBuf out = Unpooled.buffer();
        int sequence = new PrepareOk(statementId, columns, parameters, 0).encode(out, 1);
        for (int i = 0; i < parameters + columns; i++) {
            int start = Packets.beginPacket(out);
            ColumnDefinition.varString(i < parameters ? "?" : "c" + (i - parameters), 64).encodePayload(out,
                    capabilities());
            sequence = Packets.endPacket(out, start, sequence);
        }
        answer(out);
    }

    /** More rows of a result set already started with {@link #rowsWithoutEnd}: the answer makes progress. */
    public void moreRows(List<List<String>> rows) {
        ByteBuf out = Unpooled.buffer();
        for (List<String> row : rows) {
            int start = Packets.beginPacket(out);
            for (String value : row) {
                if (value == null) {
                    LengthEncoded.writeNull(out);
                } else {
                    LengthEncoded.writeString(out, value);
                }
            }
            Packets.endPacket(out, start, 2);
        }
        answer(out);
    }

    /** The server asks for the client's file of a LOAD DATA LOCAL INFILE. */
    public void localInfileRequest(String fileName) {
        ByteBuf out = Unpooled.buffer();
        int start = Packets.beginPacket(out);
        out.writeByte(0xFB).writeCharSequence(fileName, StandardCharsets.UTF_8);
        Packets.endPacket(out, start, 1);
        answer(out);
    }

    /**
     * From now on the server takes no more bytes: what the session writes stays in the channel's
     * outbound buffer, which turns unwritable past {@code highWaterMark} bytes.
     */
    public void stall(int highWaterMark) {
        channel.config().setWriteBufferWaterMark(new WriteBufferWaterMark(highWaterMark / 2, highWaterMark));
        stall.stalled = true;
    }

    /** The server reads again: what was held reaches it and the channel turns writable. */
    public void resume() {
        stall.stalled = false;
        channel.flush();
        sessionTasks.run();
    }

    /** Whether the session reads this connection (it stops while its client cannot take more). */
    public boolean readByTheSession() {
        return channel.config().isAutoRead();
    }

    /** The first {@code bytes} of an answer, not the rest: the session has started to forward it. */
    public void partial(ByteBuf bytes) {
        answer(bytes);
    }

    /** The server goes away (killed, restarted): the connection closes. */
    public void die() {
        channel.close();
    }

    public boolean isOpen() {
        return channel.isOpen();
    }

    public boolean negotiated(long capability) {
        return Capabilities.has(capabilities(), capability);
    }

    void releaseUnread() {
        collect();
        written.release();
        channel.finishAndReleaseAll();
    }

    /** Holds flushes while the server is stalled, so that written bytes stay pending in Netty. */
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
