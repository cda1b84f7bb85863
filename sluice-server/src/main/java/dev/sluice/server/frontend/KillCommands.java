package dev.sluice.server.frontend;

import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.server.backend.InternalQuery;
import dev.sluice.server.runtime.NodeRef;
import dev.sluice.server.runtime.ProxyRuntime;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * KILL through the proxy. The ids clients know are Sluice's own connection ids (the handshake
 * gave them), not any server's thread ids: passing {@code KILL 42} to the primary would end
 * whatever unrelated connection has thread 42 there. So Sluice resolves the id itself:
 * {@code KILL [CONNECTION] n} ends that client session; {@code KILL QUERY n} becomes
 * {@code KILL QUERY <thread>} on the node running that session's statement, sent with the
 * killer's own login (so the server's own ownership rules still apply).
 */
final class KillCommands {
    /** {@code KILL [HARD|SOFT] [CONNECTION | QUERY [ID]] n}, after optional comments. */
    private static final Pattern KILL = Pattern.compile(
            "^\\s*(?:/\\*.*?\\*/\\s*)*KILL\\s+(?:HARD\\s+|SOFT\\s+)?(CONNECTION\\s+|QUERY\\s+(?:ID\\s+)?)?(\\d+)\\s*;?\\s*$",
            Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    private static final int ER_NO_SUCH_THREAD = 1094;
    private static final int ER_KILL_DENIED_ERROR = 1095;
    private static final int COM_PROCESS_KILL_ID_OFFSET = Packets.HEADER_SIZE + 1;

    private final ClientSession session;

    KillCommands(ClientSession session) {
        this.session = session;
    }

    /** A KILL statement in a COM_QUERY; false when it names no connection id (e.g. KILL USER). */
    boolean tryQuery(ByteBuf frame) {
        int start = frame.readerIndex() + Packets.HEADER_SIZE + 1;
        String sql = frame.toString(start, frame.writerIndex() - start, StandardCharsets.UTF_8);
        Matcher m = KILL.matcher(sql);
        if (!m.matches()) {
            return false;
        }
        boolean query = m.group(1) != null && m.group(1).trim().toUpperCase(java.util.Locale.ROOT).startsWith("QUERY");
        long id;
        try {
            id = Long.parseLong(m.group(2));
        } catch (NumberFormatException e) {
            return false;
        }
        frame.release();
        kill(id, query);
        return true;
    }

    /** COM_PROCESS_KILL: the connection id as a 4-byte integer. */
    void processKill(ByteBuf frame) {
        long id = frame.getUnsignedIntLE(frame.readerIndex() + COM_PROCESS_KILL_ID_OFFSET);
        frame.release();
        kill(id, false);
    }

    private void kill(long id, boolean queryOnly) {
        ProxyRuntime proxy = session.proxy();
        Optional<ProxyRuntime.KillTarget> target = proxy.session(id);
        if (target.isEmpty()) {
            session.replies().error(ER_NO_SUCH_THREAD, "HY000", "Unknown thread id: " + id);
            return;
        }
        if (!target.get().user().equals(session.identity().user())) {
            session.replies().error(ER_KILL_DENIED_ERROR, "HY000", "You are not owner of thread " + id);
            return;
        }
        if (!queryOnly) {
            if (id == session.connectionId()) {
                // As on the server: killing yourself ends your own connection, with no OK first.
                session.close();
                return;
            }
            target.get().kill();
            session.replyOk();
            return;
        }
        session.holdCommand();
        target.get().runningStatement().whenComplete((running, error) -> session.client().eventLoop().execute(() -> {
            if (session.isClosed()) {
                return;
            }
            Optional<NodeRef> node = running == null || running.isEmpty() ? Optional.empty()
                    : proxy.node((int) running.get()[0]);
            if (node.isEmpty()) {
                // Nothing running: nothing to interrupt, as the server answers for an idle thread.
                session.commandDone();
                session.replyOk();
                session.resume();
                return;
            }
            ByteBuf kill = InternalQuery.queryPacket(session.client().alloc().buffer(),
                    "KILL QUERY " + running.get()[1]);
            session.forward(node.get(), kill, ResponseKind.SINGLE, CommandListener.NONE);
        }));
    }
}
