package dev.sluice.server.frontend;

import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.routing.sql.KillStatement;
import dev.sluice.routing.sql.Statement;
import dev.sluice.routing.sql.StatementKind;
import dev.sluice.routing.sql.StatementProperty;
import dev.sluice.server.backend.InternalQuery;
import dev.sluice.server.runtime.NodeDirectory;
import dev.sluice.server.runtime.NodeRef;
import dev.sluice.server.runtime.ProxyRuntime;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.EventLoop;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.LongFunction;

/**
 * KILL through the proxy. The ids clients know are Sluice's own connection ids (the handshake
 * gave them, {@code CONNECTION_ID()} answers them), not any server's thread ids: passing
 * {@code KILL 42} to the primary would end whatever unrelated connection has thread 42 there. So
 * Sluice resolves the id itself, with the server's rules on who may kill whom (the same user, or
 * an account with CONNECTION ADMIN or SUPER: {@link KillPermission}): {@code KILL [CONNECTION] n}
 * ends that client session; {@code KILL QUERY n} becomes {@code KILL QUERY <thread>} on the node
 * running that session's statement, sent through the killer's own connection there.
 *
 * <p>A KILL among other statements of one text is resolved first, then replaced in the text by a
 * statement that answers as it would have — {@code DO 0} for its OK, a {@code SIGNAL} of its
 * error, which also stops the statements after it — and the text goes on its way.
 */
final class KillCommands {
    private static final String SQLSTATE = ErrorCodes.SQLSTATE_GENERAL;
    /** The server's SQLSTATE for ER_NOT_SUPPORTED_YET. */
    private static final String SQLSTATE_SYNTAX = "42000";
    private static final String NOT_AN_ID = "KILL through Sluice takes a connection id written as a number "
            + "(the one CONNECTION_ID() answers); KILL QUERY ID and expressions are not supported";
    private static final int COM_PROCESS_KILL_ID_OFFSET = Packets.HEADER_SIZE + 1;
    /** What stands for a KILL that succeeded in a text of several statements: an OK, nothing else. */
    private static final String ANSWERS_OK = "DO 0";

    private final CurrentCommand command;
    private final LocalAnswers answers;
    private final SessionLogin login;
    private final RoutingSession routing;
    private final NodeDirectory nodes;
    private final LongFunction<Optional<ProxyRuntime.KillTarget>> sessions;
    private final KillPermission permission;
    private final EventLoop loop;
    private final ByteBufAllocator alloc;

    /** @param sessions the live sessions of every endpoint, by the connection id Sluice gave them */
    KillCommands(CurrentCommand command, LocalAnswers answers, SessionLogin login, RoutingSession routing,
            NodeDirectory nodes, LongFunction<Optional<ProxyRuntime.KillTarget>> sessions, KillPermission permission,
            EventLoop loop, ByteBufAllocator alloc) {
        this.command = command;
        this.answers = answers;
        this.login = login;
        this.routing = routing;
        this.nodes = nodes;
        this.sessions = sessions;
        this.permission = permission;
        this.loop = loop;
        this.alloc = alloc;
    }

    /**
     * A COM_QUERY holding KILL statements. Returns false (the frame untouched) when there is no
     * KILL by id in it; otherwise it is answered here, or — among other statements — passed to
     * {@code run} with the KILLs replaced, once they are resolved.
     */
    boolean tryQuery(CommandFrame f, Statement statement, BiConsumer<Statement, CommandFrame> run) {
        if (statement.kind() != StatementKind.KILL && !statement.has(StatementProperty.MULTI_STATEMENT)) {
            return false;
        }
        ByteBuf frame = f.bytes();
        int textStart = frame.readerIndex() + Packets.HEADER_SIZE + 1;
        byte[] text = ByteBufUtil.getBytes(frame, textStart, frame.writerIndex() - textStart);
        ClientCharset charset = routing.clientCharset();
        List<KillStatement> kills = KillStatement.find(text, 0, text.length, charset).stream()
                .filter(k -> !(k.target() instanceof KillStatement.Target.User)).toList();
        if (kills.isEmpty()) {
            return false;
        }
        f.release();
        if (!statement.has(StatementProperty.MULTI_STATEMENT)) {
            alone(kills.get(0));
            return true;
        }
        command.hold();
        MultiStatementKills.resolve(this, text, kills, charset).whenCompleteAsync((replaced, error) -> {
            if (command.sessionClosed()) {
                return;
            }
            if (error != null) {
                unresolved(error);
                return;
            }
            if (replaced.isEmpty()) {
                command.closeSession();
                return;
            }
            CommandFrame rewritten = new CommandFrame(InternalQuery.queryPacket(alloc.buffer(), replaced.get()));
            try {
                run.accept(Commands.classify(rewritten.bytes(), charset), rewritten);
            } catch (RuntimeException e) {
                // outside the dispatch's own guard: a bug here must end this session, not leave it waiting
                rewritten.releaseUntaken();
                command.failAndClose(ErrorCodes.ER_UNKNOWN_ERROR, SQLSTATE,
                        "Sluice could not process this command: " + e);
            }
        }, loop);
        return true;
    }

    /** COM_PROCESS_KILL: the connection id as a 4-byte integer. */
    void processKill(CommandFrame f) {
        long id = f.bytes().getUnsignedIntLE(f.bytes().readerIndex() + COM_PROCESS_KILL_ID_OFFSET);
        f.release();
        answer(resolve(id, false));
    }

    private void alone(KillStatement kill) {
        if (kill.connectionId().isEmpty()) {
            answers.error(ErrorCodes.ER_NOT_SUPPORTED_YET, SQLSTATE_SYNTAX, NOT_AN_ID);
            return;
        }
        answer(resolve(kill.connectionId().getAsLong(), kill.queryOnly()));
    }

    private void answer(CompletableFuture<KillOutcome> outcome) {
        command.hold();
        outcome.whenCompleteAsync((o, error) -> {
            if (command.sessionClosed()) {
                return;
            }
            if (error != null) {
                unresolved(error);
            } else if (o instanceof KillOutcome.Refused refused) {
                command.failed(refused.code(), refused.sqlState(), refused.message());
            } else if (o instanceof KillOutcome.InterruptOn on) {
                command.forward(on.node(), killQuery(on), ResponseKind.SINGLE, CommandListener.NONE);
            } else if (o instanceof KillOutcome.OwnConnection) {
                command.closeSession();
            } else {
                command.done();
                answers.ok();
                command.resume();
            }
        }, loop);
    }

    /** Resolving failed inside Sluice (a target's loop refused the task …): the client hears why. */
    private void unresolved(Throwable error) {
        command.failed(ErrorCodes.ER_UNKNOWN_ERROR, SQLSTATE, "KILL could not be resolved by Sluice: " + error);
    }

    /** The packet that interrupts the statement {@code on} names, on its node. */
    private ByteBuf killQuery(KillOutcome.InterruptOn on) {
        return InternalQuery.queryPacket(alloc.buffer(), "KILL QUERY " + on.thread());
    }

    /** Interrupts the statement {@code on} names, ahead of the client's text that held the KILL QUERY. */
    void interruptFirst(KillOutcome.InterruptOn on) {
        command.sendBefore(on.node(), killQuery(on));
    }

    /** What {@code KILL [QUERY] id} comes to; completes on the session's event loop. */
    CompletableFuture<KillOutcome> resolve(long id, boolean queryOnly) {
        Optional<ProxyRuntime.KillTarget> found = sessions.apply(id);
        if (found.isEmpty()) {
            return CompletableFuture.completedFuture(
                    new KillOutcome.Refused(ErrorCodes.ER_NO_SUCH_THREAD, SQLSTATE, "Unknown thread id: " + id));
        }
        ProxyRuntime.KillTarget target = found.get();
        CompletableFuture<Boolean> allowed = target.user().equals(login.identity().user())
                ? CompletableFuture.completedFuture(true) : permission.mayKillOthers();
        return allowed.thenComposeAsync(mayKill -> {
            if (!mayKill) {
                return CompletableFuture.<KillOutcome>completedFuture(
                        new KillOutcome.Refused(ErrorCodes.ER_KILL_DENIED_ERROR, SQLSTATE,
                                "You are not owner of thread " + id));
            }
            if (!queryOnly) {
                if (id == login.connectionId()) {
                    return CompletableFuture.<KillOutcome>completedFuture(new KillOutcome.OwnConnection());
                }
                target.kill();
                return CompletableFuture.<KillOutcome>completedFuture(new KillOutcome.Done());
            }
            return target.runningStatement().thenApplyAsync(running -> {
                Optional<NodeRef> node = running == null || running.isEmpty() ? Optional.empty()
                        : nodes.node((int) running.get()[0]);
                // Nothing running: nothing to interrupt, as the server answers for an idle thread.
                return node.<KillOutcome>map(n -> new KillOutcome.InterruptOn(n, running.get()[1]))
                        .orElseGet(KillOutcome.Done::new);
            }, loop);
        }, loop);
    }

    /** The text a resolved KILL leaves in a text of several statements, in place of itself. */
    static String standIn(KillOutcome outcome) {
        if (outcome instanceof KillOutcome.Refused r) {
            return "SIGNAL SQLSTATE '" + r.sqlState() + "' SET MYSQL_ERRNO = " + r.code()
                    + ", MESSAGE_TEXT = '" + r.message().replace("'", "''") + "'";
        }
        return ANSWERS_OK;
    }

    static KillOutcome notAnId() {
        return new KillOutcome.Refused(ErrorCodes.ER_NOT_SUPPORTED_YET, SQLSTATE_SYNTAX, NOT_AN_ID);
    }
}
