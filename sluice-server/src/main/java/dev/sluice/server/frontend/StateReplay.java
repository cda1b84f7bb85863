package dev.sluice.server.frontend;

import dev.sluice.protocol.Command;
import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.BackendException;
import dev.sluice.server.backend.InternalQuery;
import dev.sluice.server.backend.QueryResult;
import dev.sluice.server.backend.SessionTracking;
import dev.sluice.server.backend.TextResultCollector;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What a backend connection is sent to change the state it carries (BEHAVIOUR §7): a session's
 * state before it serves that session — its replay, after a reset when it carried another
 * session's — and a fresh state before it goes back to a pool. Everything goes in one write, and
 * GTID tracking is asked for last, whatever the replay set.
 */
final class StateReplay {
    private StateReplay() {
    }

    /**
     * Gives {@code b} the session's state {@code tag} names, unless it already carries it; fails
     * with the server's error when a command of the replay is refused.
     */
    static CompletableFuture<Void> giveSessionState(BackendConnection b, int nodeId, String tag, BackendState state) {
        List<ReplayCommand> commands = new ArrayList<>();
        if (b.stateTag() != null && b.stateTag().equals(tag)) {
            return CompletableFuture.completedFuture(null);
        }
        if (resets(b, tag, state)) {
            commands.addAll(resetOn(b, state.schema(), state.loginCharset()));
        }
        commands.addAll(state.replay(nodeId));
        // Last, so that a replayed SET session_track_system_variables (MariaDB Connector/J sends
        // one at every connect) does not switch GTID tracking off again.
        commands.add(trackGtids(b));
        return run(b, commands);
    }

    /**
     * Whether {@link #giveSessionState} begins with a reset: a connection used before that carries
     * neither the session's state {@code tag} nor the fresh state on its schema. A pooled connection
     * given back reset (SessionBackends.returnReset) already carries the latter: a session on that
     * schema only needs its own history, not a second reset.
     */
    static boolean resets(BackendConnection b, String tag, BackendState state) {
        String carried = b.stateTag();
        return carried != null && !carried.equals(tag) && !carried.equals(state.freshTag(state.schema()));
    }

    /**
     * Resets {@code b} to a fresh session on {@code schema} (COM_RESET_CONNECTION, then USE), tracking
     * GTIDs again: what {@link BackendState#freshTag} names.
     */
    static CompletableFuture<Void> reset(BackendConnection b, Optional<String> schema, ClientCharset loginCharset) {
        List<ReplayCommand> commands = new ArrayList<>(resetOn(b, schema, loginCharset));
        commands.add(trackGtids(b));
        return run(b, commands);
    }

    /**
     * COM_RESET_CONNECTION, then USE of the schema. The reset keeps the connection's schema but
     * not what it took from it: {@code character_set_database} and {@code collation_database} go
     * back to their global values, where a client's fresh connection on that schema has the
     * schema's own (what LOAD DATA reads a file in, and the default character set of a stored
     * routine's parameters and variables). The USE takes them from the schema again.
     */
    private static List<ReplayCommand> resetOn(BackendConnection b, Optional<String> schema,
            ClientCharset loginCharset) {
        List<ReplayCommand> commands = new ArrayList<>(2);
        commands.add(new ReplayCommand(resetPacket(b), ResponseKind.SINGLE));
        schema.ifPresent(s -> {
            // Reset, the connection reads statements in the login's character set again.
            byte[] use = loginCharset.encode("USE `" + s.replace("`", "``") + "`");
            ByteBuf packet = b.channel().alloc().buffer(Packets.HEADER_SIZE + 1 + use.length);
            packet.writeMediumLE(1 + use.length).writeByte(0).writeByte(Command.COM_QUERY).writeBytes(use);
            commands.add(new ReplayCommand(packet, ResponseKind.RESULT));
        });
        return commands;
    }

    private static ReplayCommand trackGtids(BackendConnection b) {
        return new ReplayCommand(InternalQuery.queryPacket(b.channel().alloc().buffer(),
                SessionTracking.enableStatement(b.serverVersion())), ResponseKind.RESULT);
    }

    private static ByteBuf resetPacket(BackendConnection b) {
        return b.channel().alloc().buffer(5).writeMediumLE(1).writeByte(0).writeByte(Command.COM_RESET_CONNECTION);
    }

    private static CompletableFuture<Void> run(BackendConnection b, List<ReplayCommand> commands) {
        List<CompletableFuture<QueryResult>> results = new ArrayList<>(commands.size());
        for (int i = 0; i < commands.size(); i++) {
            ReplayCommand command = commands.get(i);
            TextResultCollector collector = new TextResultCollector();
            // One write for all: the server reads them in one go and answers them in one.
            b.send(command.packet(), command.kind(), collector, i == commands.size() - 1);
            results.add(collector.result());
        }
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).thenAccept(v -> {
            for (CompletableFuture<QueryResult> r : results) {
                QueryResult q = r.join();
                if (q.isError()) {
                    throw new BackendException(q.error().get());
                }
            }
        });
    }
}
