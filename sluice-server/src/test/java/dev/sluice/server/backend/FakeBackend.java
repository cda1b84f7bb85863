package dev.sluice.server.backend;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.Command;
import dev.sluice.protocol.ServerStatus;
import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.response.ErrPacket;
import dev.sluice.protocol.response.OkPacket;
import dev.sluice.protocol.response.SessionStateChange;
import dev.sluice.protocol.response.TextResultWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
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
            "SET session_track_system_variables", "SET SESSION session_track_gtids", "SET autocommit=1");

    private final BackendConnection connection;
    private final EmbeddedChannel channel;
    private final LoginRequest login;
    private final ByteBuf written = Unpooled.buffer();
    private final Runnable sessionTasks;

    FakeBackend(BackendConnection connection, EmbeddedChannel channel, LoginRequest login, Runnable sessionTasks) {
        this.connection = connection;
        this.channel = channel;
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
}
