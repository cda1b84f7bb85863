package dev.sluice.server.frontend;

import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.metrics.SluiceMetrics;
import dev.sluice.server.replay.TransactionLog;
import dev.sluice.server.runtime.NodeDirectory;
import dev.sluice.server.runtime.NodeRef;
import dev.sluice.server.runtime.PrimaryHold;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Runs a transaction lost with its primary connection again, on a new connection to the primary
 * of the moment (BEHAVIOUR §10), before the client's next command: the recorded statements are
 * sent one after the other ({@link ReplayRun}), their answers kept from the client and checked
 * against the checksums of the answers it got. The session goes on only if every one matches and leaves the transaction
 * open; otherwise the client gets the lost transaction's error, saying why the replay did not do.
 *
 * <pre>
 *   whyNot? ─ yes ─▶ not-replayable
 *     │ no
 *   (a failover holds the primary: wait for it) ─▶ connect ─ fails ─▶ failed
 *     │
 *   statement 1 … n ─ checksum or IN_TRANS differs ─▶ differed;  connection fails ─▶ failed
 *     │ all match
 *   replayed: the client's command runs on that connection
 * </pre>
 *
 * <p>The new connection replays the session's state as any late one does; the state must not have
 * changed since the transaction began (see {@link TransactionRecording#stateChanged()}).
 */
final class TransactionReplay {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(TransactionReplay.class);

    private final long connectionId;
    private final TransactionRecording recording;
    private final PreparedStatements statements;
    private final SessionBackends backends;
    private final NodeDirectory nodes;
    private final PrimaryHold hold;
    private final EventLoop loop;
    private final ByteBufAllocator alloc;
    private final SluiceMetrics metrics;
    private final BooleanSupplier sessionClosed;

    TransactionReplay(long connectionId, TransactionRecording recording, PreparedStatements statements,
            SessionBackends backends, NodeDirectory nodes, PrimaryHold hold, EventLoop loop, ByteBufAllocator alloc,
            SluiceMetrics metrics, BooleanSupplier sessionClosed) {
        this.connectionId = connectionId;
        this.recording = recording;
        this.statements = statements;
        this.backends = backends;
        this.nodes = nodes;
        this.hold = hold;
        this.loop = loop;
        this.alloc = alloc;
        this.metrics = metrics;
        this.sessionClosed = sessionClosed;
    }

    /**
     * Replays the lost transaction; then runs {@code replayed}, or gives {@code refused} what the
     * client's error says of the replay, or runs {@code abandoned} if the session ended meanwhile.
     */
    void run(Runnable replayed, Consumer<String> refused, Runnable abandoned) {
        Optional<String> why = whyNot();
        if (why.isPresent()) {
            LOG.info("session {}: the lost transaction is not replayed: {}", connectionId, why.get());
            metrics.transactionReplay("not-replayable");
            refused.accept("it was not replayed: " + why.get());
            return;
        }
        Outcome outcome = new Outcome(replayed, refused, abandoned);
        if (hold.holding()) {
            // A failover or switchover is replacing the primary: replay on the one it ends with.
            hold.park(loop, () -> connect(outcome));
        } else {
            connect(outcome);
        }
    }

    /**
     * Before each client command: a primary connection that died while the client was between
     * commands, its close not yet heard of, is found now ({@link SessionBackends#ready} takes it as
     * lost), so that the command waits for the replay instead of running on a new connection
     * outside the transaction.
     */
    void findLostPrimaryConnection() {
        nodes.primary().ifPresent(p -> backends.ready(p.id()));
    }

    private Optional<String> whyNot() {
        TransactionLog log = recording.log();
        if (log.notReplayable().isPresent()) {
            return log.notReplayable();
        }
        if (!log.open() || log.entries().isEmpty()) {
            return Optional.of("none of its statements was recorded");
        }
        if (recording.stateChanged()) {
            return Optional.of("the session's state (schema, SET, user variables) changed inside it");
        }
        return Optional.empty();
    }

    private void connect(Outcome outcome) {
        if (sessionClosed.getAsBoolean()) {
            outcome.abandoned();
            return;
        }
        Optional<NodeRef> primary = nodes.primary();
        if (primary.isEmpty()) {
            outcome.failed("there is no primary to replay it on");
            return;
        }
        NodeRef node = primary.get();
        BackendConnection ready = backends.ready(node.id());
        if (ready != null) {
            // Opened while the node was a replica (a failover promoted it), so kept in autocommit
            // whatever the client set: the transaction is replayed on a connection that carries the
            // session's state as a primary's does.
            backends.remove(ready);
        }
        backends.open(node).addListener(f -> {
            if (sessionClosed.getAsBoolean()) {
                outcome.abandoned();
                return;
            }
            if (f.isSuccess()) {
                new ReplayRun((BackendConnection) f.getNow(), node, recording.log().entries(), statements, alloc,
                        sessionClosed, outcome).next();
            } else {
                outcome.failed("its replay could not connect to the primary '" + node.name() + "': "
                        + f.cause().getMessage());
            }
        });
    }

    /** Where the replay ends: the client's command, or its error. */
    private final class Outcome implements ReplayRun.Outcome {
        private final Runnable thenCommand;
        private final Consumer<String> refused;
        private final Runnable sessionEnded;

        Outcome(Runnable thenCommand, Consumer<String> refused, Runnable sessionEnded) {
            this.thenCommand = thenCommand;
            this.refused = refused;
            this.sessionEnded = sessionEnded;
        }

        @Override
        public void replayed(String node, int statements) {
            LOG.info("session {}: the lost transaction was replayed on '{}' ({} statements, every answer the same)",
                    connectionId, node, statements);
            metrics.transactionReplay("replayed");
            thenCommand.run();
        }

        @Override
        public void differed(String why) {
            LOG.info("session {}: the lost transaction's replay differed: {}", connectionId, why);
            metrics.transactionReplay("differed");
            refused.accept("its replay was tried and differed: " + why);
        }

        @Override
        public void failed(String why) {
            LOG.info("session {}: the lost transaction's replay failed: {}", connectionId, why);
            metrics.transactionReplay("failed");
            refused.accept("its replay was tried and failed: " + why);
        }

        @Override
        public void abandoned() {
            sessionEnded.run();
        }
    }
}
