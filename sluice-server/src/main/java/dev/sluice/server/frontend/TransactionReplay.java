package dev.sluice.server.frontend;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.ServerStatus;
import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.ResponseSink;
import dev.sluice.server.metrics.SluiceMetrics;
import dev.sluice.server.replay.AnswerChecksum;
import dev.sluice.server.replay.TransactionLog;
import dev.sluice.server.runtime.NodeDirectory;
import dev.sluice.server.runtime.NodeRef;
import dev.sluice.server.runtime.PrimaryHold;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Runs a transaction lost with its primary connection again, on a new connection to the primary
 * of the moment (BEHAVIOUR §10), before the client's next command: the recorded statements are
 * sent one after the other, their answers kept from the client and checked against the checksums
 * of the answers it got. The session goes on only if every one matches and leaves the transaction
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
    /** How much of a statement the error quotes. */
    private static final int QUOTED = 60;

    private final long connectionId;
    private final TransactionRecording recording;
    private final SessionBackends backends;
    private final NodeDirectory nodes;
    private final PrimaryHold hold;
    private final EventLoop loop;
    private final ByteBufAllocator alloc;
    private final SluiceMetrics metrics;
    private final BooleanSupplier sessionClosed;

    TransactionReplay(long connectionId, TransactionRecording recording, SessionBackends backends, NodeDirectory nodes,
            PrimaryHold hold, EventLoop loop, ByteBufAllocator alloc, SluiceMetrics metrics,
            BooleanSupplier sessionClosed) {
        this.connectionId = connectionId;
        this.recording = recording;
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
            outcome.abandoned.run();
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
                outcome.abandoned.run();
                return;
            }
            if (f.isSuccess()) {
                new Run((BackendConnection) f.getNow(), node, recording.log().entries(), outcome).next();
            } else {
                outcome.failed("its replay could not connect to the primary '" + node.name() + "': "
                        + f.cause().getMessage());
            }
        });
    }

    /** Where the replay ends: the client's command, or its error. */
    private final class Outcome {
        private final Runnable replayed;
        private final Consumer<String> refused;
        private final Runnable abandoned;

        Outcome(Runnable replayed, Consumer<String> refused, Runnable abandoned) {
            this.replayed = replayed;
            this.refused = refused;
            this.abandoned = abandoned;
        }

        void replayed(String node, int statements) {
            LOG.info("session {}: the lost transaction was replayed on '{}' ({} statements, every answer the same)",
                    connectionId, node, statements);
            metrics.transactionReplay("replayed");
            replayed.run();
        }

        void differed(String why) {
            LOG.info("session {}: the lost transaction's replay differed: {}", connectionId, why);
            metrics.transactionReplay("differed");
            refused.accept("its replay was tried and differed: " + why);
        }

        void failed(String why) {
            LOG.info("session {}: the lost transaction's replay failed: {}", connectionId, why);
            metrics.transactionReplay("failed");
            refused.accept("its replay was tried and failed: " + why);
        }
    }

    /** The recorded statements sent, one at a time, to one connection. */
    private final class Run {
        private final BackendConnection backend;
        private final NodeRef node;
        private final List<TransactionLog.Entry> entries;
        private final Outcome outcome;
        private int at;

        Run(BackendConnection backend, NodeRef node, List<TransactionLog.Entry> entries, Outcome outcome) {
            this.backend = backend;
            this.node = node;
            this.entries = entries;
            this.outcome = outcome;
        }

        void next() {
            if (at == entries.size()) {
                outcome.replayed(node.name(), entries.size());
                return;
            }
            TransactionLog.Entry entry = entries.get(at);
            ByteBuf packet = alloc.buffer(4 + entry.payload().length);
            packet.writeMediumLE(entry.payload().length).writeByte(0).writeBytes(entry.payload());
            boolean deprecateEof = Capabilities.has(backend.capabilities(), Capabilities.CLIENT_DEPRECATE_EOF);
            backend.send(packet, ResponseKind.RESULT, new Answer(entry, new AnswerChecksum(deprecateEof)));
        }

        /** One replayed statement's answer: checked, never forwarded. */
        private final class Answer implements ResponseSink {
            private final TransactionLog.Entry entry;
            private final AnswerChecksum checksum;

            Answer(TransactionLog.Entry entry, AnswerChecksum checksum) {
                this.entry = entry;
                this.checksum = checksum;
            }

            @Override
            public void onBytes(ByteBuf bytes) {
                try {
                    byte[] copy = io.netty.buffer.ByteBufUtil.getBytes(bytes);
                    checksum.update(copy, 0, copy.length);
                } finally {
                    bytes.release();
                }
            }

            @Override
            public void onComplete(BackendConnection b, ResponseTracker tracker) {
                if (sessionClosed.getAsBoolean()) {
                    outcome.abandoned.run();
                    return;
                }
                int status = tracker.lastStatus();
                if (!checksum.complete() || tracker.isLocalInfileRequest()) {
                    outcome.failed("Sluice could not read the answer to statement " + statement());
                } else if (checksum.value() != entry.checksum()) {
                    outcome.differed("the answer to statement " + statement() + " is not the one the client got");
                } else if (status >= 0 && (status & ServerStatus.IN_TRANS) == 0) {
                    outcome.differed("statement " + statement() + " left no transaction open");
                } else {
                    at++;
                    next();
                }
            }

            @Override
            public void onFailure(BackendConnection b, Throwable cause) {
                if (sessionClosed.getAsBoolean()) {
                    outcome.abandoned.run();
                } else {
                    outcome.failed("the connection to the primary '" + node.name() + "' failed under statement "
                            + statement() + ": " + cause.getMessage());
                }
            }

            /** "2 of 3 (INSERT INTO t …)" */
            private String statement() {
                byte[] p = entry.payload();
                int length = Math.min(p.length - 1, QUOTED);
                String text = new String(p, 1, length, StandardCharsets.UTF_8).replaceAll("\\s+", " ").strip();
                return (at + 1) + " of " + entries.size() + " (" + text + (p.length - 1 > QUOTED ? " …" : "") + ")";
            }
        }
    }
}
