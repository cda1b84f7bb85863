package dev.sluice.routing.fuzz;

import dev.sluice.protocol.ServerStatus;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.routing.EndpointView;
import dev.sluice.routing.Fixtures;
import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.RouteReason;
import dev.sluice.routing.Router;
import dev.sluice.routing.balance.ActiveRequests;
import dev.sluice.routing.gtid.MariaDbGtidList;
import dev.sluice.routing.policy.ConsistencyLevel;
import dev.sluice.routing.policy.EndpointMode;
import dev.sluice.routing.policy.EndpointPolicy;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.SqlClassifier;
import dev.sluice.routing.sql.Statement;
import dev.sluice.routing.sql.StatementKind;
import dev.sluice.routing.sql.StatementProperty;
import dev.sluice.routing.sql.UnguardedClassifier;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The SQL classifier fed arbitrary bytes, and the router fed what it makes of them. The
 * classifier never throws (not even without its catch-all safety net), terminates, and is
 * deterministic: the same bytes give the same statement, whether the per-thread scanner is reused
 * or fresh and wherever the text sits in the payload. The router never sends a statement the
 * classifier calls a write (a non-read kind, a locking read, SELECT … INTO) to a replica, and
 * never fans out anything but a session command.
 */
class SqlClassifierFuzzTest {
    private static final String CASES = "/dev/sluice/routing/sql/classifier-cases.tsv";
    /** Bytes around the text in the payload, so that offsets are exercised. */
    private static final int MARGIN = 3;

    /** A read-write endpoint; the session's previous read ran on ro1, so previous-target rules show. */
    private static final EndpointView READ_WRITE = Fixtures.readWrite();
    private static final RoutingSession AFTER_READ = Fixtures.sessionAfterReadOn(READ_WRITE, Fixtures.RO1);
    /** Session consistency and transaction splitting, inside a transaction, after a commit. */
    private static final EndpointView SPLITTING = EndpointView.of(Fixtures.cluster(), EndpointPolicy.defaults("rw")
            .withConsistency(ConsistencyLevel.SESSION).withTransactionSplitting(true));
    private static final RoutingSession IN_TRANSACTION = inTransaction(SPLITTING);
    private static final EndpointView READ_ONLY = EndpointView.of(Fixtures.cluster(),
            EndpointPolicy.defaults("ro").withMode(EndpointMode.READ_ONLY));
    private static final RoutingSession ON_RO1 = onReplica(READ_ONLY, Fixtures.RO1);

    static Stream<byte[]> classifierCases() {
        return tableStatements().stream().map(sql -> sql.getBytes(StandardCharsets.UTF_8));
    }

    @MethodSource("classifierCases")
    @FuzzTest(maxDuration = FuzzBudget.PER_TARGET)
    void classifyAndRoute(byte[] sql) {
        byte[] payload = new byte[sql.length + 2 * MARGIN];
        System.arraycopy(sql, 0, payload, MARGIN, sql.length);
        payload[0] = '\'';
        payload[payload.length - 1] = '(';

        Statement unguarded = UnguardedClassifier.classify(sql, 0, sql.length);
        Statement reused = SqlClassifier.classify(sql, 0, sql.length);
        require(reused.equals(unguarded), "the reused scanner says " + reused + ", a fresh one " + unguarded);
        Statement inPayload = SqlClassifier.classify(payload, MARGIN, sql.length);
        require(inPayload.equals(reused), "at offset " + MARGIN + ": " + inPayload + ", at 0: " + reused);
        require(SqlClassifier.classify(sql, 0, sql.length).equals(reused), "a second classification differs");

        readWrite(reused, AFTER_READ, READ_WRITE);
        readWrite(reused, IN_TRANSACTION, SPLITTING);
        readOnly(reused);
    }

    /** The read-write rules: a non-read never reaches a replica, only session commands fan out. */
    private static void readWrite(Statement s, RoutingSession session, EndpointView view) {
        RouteDecision query = Router.route(s, session, view, ActiveRequests.NONE);
        RouteDecision execute = Router.routeExecute(s, session, view, ActiveRequests.NONE);
        require(!(writes(s) || s.kind() == StatementKind.SET_USER_VARIABLE)
                || !(execute instanceof RouteDecision.ToReplica), "a prepared " + s + " goes to a replica: " + execute);
        for (RouteDecision d : List.of(query, execute)) {
            if (writes(s)) {
                require(!(d instanceof RouteDecision.ToReplica), s + " writes, yet it goes to a replica: " + d);
            }
            if (d instanceof RouteDecision.ToAllBackends) {
                require(s.isSessionCommand(), s + " is no session command, yet it goes to every backend");
            }
        }
        require(!(execute instanceof RouteDecision.ToAllBackends), "a prepared " + s + " goes to every backend");
    }

    /**
     * What the classifier says writes: a non-read kind, a locking read, SELECT … INTO, a sequence.
     * GET DIAGNOSTICS is no read kind, yet it must go where the statement it reports on ran; nor
     * does a SET of user variables from the previous statement's trace or counts write anything
     * unless it calls stored code.
     */
    private static boolean writes(Statement s) {
        if (s.kind() == StatementKind.DIAGNOSTICS) {
            return false;
        }
        if (s.kind() == StatementKind.SET_USER_VARIABLE && s.has(StatementProperty.PREVIOUS_TARGET)
                && !s.has(StatementProperty.STORED_FUNCTION) && !s.has(StatementProperty.LOCKING_READ)
                && !s.has(StatementProperty.SEQUENCE)) {
            return false;
        }
        return !s.kind().isRead() || s.has(StatementProperty.LOCKING_READ) || s.has(StatementProperty.SELECT_INTO)
                || s.has(StatementProperty.SEQUENCE);
    }

    /** The read-only rules: writes are refused, nothing goes to the primary. */
    private static void readOnly(Statement s) {
        RouteDecision d = Router.route(s, ON_RO1, READ_ONLY, ActiveRequests.NONE);
        boolean write = switch (s.kind()) {
            case INSERT, UPDATE, DELETE, REPLACE, LOAD, EXPLAIN_WRITE, ADMINISTRATION -> true;
            default -> false;
        };
        if (write) {
            require(d instanceof RouteDecision.Reject, s + " is a write on a read-only endpoint: " + d);
        }
        require(!(d instanceof RouteDecision.ToPrimary), s + " reaches the primary from a read-only endpoint");
    }

    private static RoutingSession inTransaction(EndpointView view) {
        RoutingSession session = RoutingSession.open(view);
        session.onStatementSent(SqlClassifier.classify("INSERT INTO t VALUES (1)"),
                RouteDecision.primary(RouteReason.WRITE));
        session.onCommittedGtid(MariaDbGtidList.of(0, 1, 101));
        session.onResponse(ServerStatus.AUTOCOMMIT);
        session.onStatementSent(SqlClassifier.classify("START TRANSACTION READ ONLY"),
                RouteDecision.primary(RouteReason.TRANSACTION_CONTROL));
        session.onResponse(ServerStatus.AUTOCOMMIT | ServerStatus.IN_TRANS);
        return session;
    }

    private static RoutingSession onReplica(EndpointView view, int replica) {
        RoutingSession session = RoutingSession.open(view);
        session.assignConnectionReplica(replica);
        return session;
    }

    /** The SQL column of the classifier's table (see {@code ClassifierTableTest} for the format). */
    private static List<String> tableStatements() {
        try (InputStream in = Objects.requireNonNull(SqlClassifierFuzzTest.class.getResourceAsStream(CASES), CASES);
             BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            return reader.lines()
                    .filter(line -> !line.isBlank() && !line.startsWith("#") && line.indexOf('\t') >= 0)
                    .map(line -> line.substring(0, line.lastIndexOf('\t')))
                    .map(sql -> sql.equals("<empty>") ? "" : sql.replace("\\n", "\n").replace("\\t", "\t"))
                    .distinct()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }
}
