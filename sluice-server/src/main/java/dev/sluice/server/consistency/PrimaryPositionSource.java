package dev.sluice.server.consistency;

import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.BackendConnector;
import dev.sluice.server.backend.BackendException;
import dev.sluice.server.backend.InternalQuery;
import dev.sluice.server.backend.LoginRequest;
import dev.sluice.server.runtime.NodeRef;
import io.netty.channel.EventLoop;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The primary's current GTID position for global-consistency reads (BEHAVIOUR §5), asked once for all
 * the reads that arrive while a question is in flight: under load the primary sees one query per
 * round trip, not one per read.
 *
 * <p>A read must see a position taken <em>after</em> it arrived, so reads arriving while a
 * question is in flight wait for the next one, which starts as soon as the current one returns.
 * Runs on one event loop; callers on other loops get a future.
 */
public final class PrimaryPositionSource implements AutoCloseable {
    private final EventLoop loop;
    private final Supplier<Optional<NodeRef>> primary;
    private final BackendConnector connector;
    private final LoginRequest login;
    private final Duration timeout;
    private final LongAdder questions = new LongAdder();
    private List<CompletableFuture<GtidPosition>> waiting = new ArrayList<>();
    private boolean inFlight;
    private BackendConnection connection;
    private boolean closed;

    public PrimaryPositionSource(EventLoop loop, Supplier<Optional<NodeRef>> primary, BackendConnector connector,
            LoginRequest login, Duration timeout) {
        this.loop = loop;
        this.primary = primary;
        this.connector = connector;
        this.login = login;
        this.timeout = timeout;
    }

    /** Queries sent to the primary so far (for metrics: primary load caused by global reads). */
    public long questionsAsked() {
        return questions.sum();
    }

    /** A position of the primary taken after this call. Thread-safe. */
    public CompletableFuture<GtidPosition> next() {
        CompletableFuture<GtidPosition> f = new CompletableFuture<>();
        loop.execute(() -> {
            if (closed) {
                f.completeExceptionally(new BackendException("Sluice is shutting down"));
                return;
            }
            waiting.add(f);
            if (!inFlight) {
                ask();
            }
        });
        return f;
    }

    private void ask() {
        Optional<NodeRef> p = primary.get();
        List<CompletableFuture<GtidPosition>> batch = waiting;
        waiting = new ArrayList<>();
        if (p.isEmpty()) {
            fail(batch, new BackendException("no primary is known"));
            return;
        }
        inFlight = true;
        questions.increment();
        CompletableFuture<GtidPosition> answer = new CompletableFuture<>();
        var guard = loop.schedule(() -> answer.completeExceptionally(new BackendException(
                "the primary did not give its GTID position within " + timeout.toMillis() + " ms")),
                timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (connection != null && connection.isUsable() && connection.nodeId() == p.get().id()) {
            query(connection, answer);
        } else {
            if (connection != null) {
                connection.close();
                connection = null;
            }
            connector.connect(loop, p.get().name(), p.get().id(), p.get().address(), login).addListener(f -> {
                if (!f.isSuccess()) {
                    answer.completeExceptionally(f.cause());
                    return;
                }
                connection = (BackendConnection) f.getNow();
                query(connection, answer);
            });
        }
        answer.whenComplete((pos, error) -> loop.execute(() -> {
            guard.cancel(false);
            inFlight = false;
            if (error != null) {
                if (connection != null) {
                    connection.close();
                    connection = null;
                }
                fail(batch, error);
            } else {
                for (CompletableFuture<GtidPosition> f : batch) {
                    f.complete(pos);
                }
            }
            if (!waiting.isEmpty() && !closed) {
                ask();
            }
        }));
    }

    private static void query(BackendConnection c, CompletableFuture<GtidPosition> answer) {
        boolean mariaDb = c.serverVersion().toLowerCase(Locale.ROOT).contains("mariadb");
        InternalQuery.run(c, mariaDb ? "SELECT @@gtid_binlog_pos AS pos" : "SELECT @@gtid_executed AS pos")
                .whenComplete((r, e) -> {
                    if (e != null) {
                        answer.completeExceptionally(e);
                    } else if (r.isError()) {
                        answer.completeExceptionally(new BackendException(r.error().get()));
                    } else {
                        Optional<GtidPosition> pos = r.first("pos").flatMap(GtidPosition::parse);
                        if (pos.isPresent()) {
                            answer.complete(pos.get());
                        } else {
                            answer.completeExceptionally(new BackendException("unreadable GTID position "
                                    + r.first("pos").orElse("NULL")));
                        }
                    }
                });
    }

    private static void fail(List<CompletableFuture<GtidPosition>> batch, Throwable error) {
        for (CompletableFuture<GtidPosition> f : batch) {
            f.completeExceptionally(error);
        }
    }

    @Override
    public void close() {
        loop.execute(() -> {
            closed = true;
            if (connection != null) {
                connection.close();
            }
            fail(waiting, new BackendException("Sluice is shutting down"));
            waiting = new ArrayList<>();
        });
    }
}
