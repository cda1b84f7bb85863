package dev.sluice.routing.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.routing.EndpointView;
import dev.sluice.routing.Fixtures;
import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.RouteReason;
import dev.sluice.routing.Router;
import dev.sluice.routing.balance.ActiveRequests;
import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.session.RoutingSession;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The classifier table: {@code classifier-cases.tsv}, one {@code sql<TAB>expectations} per line.
 * The first expectation is where a fresh read-write session (outside a transaction, previous
 * statement on ro1, replicas healthy) sends the statement: READ (a replica), PRIMARY, ALL, PREVIOUS
 * (ro1 because of the previous-target rule) or LOCAL. The others check the classification:
 * {@code kind=}, {@code +PROPERTY}, {@code -PROPERTY}, {@code hint=}, {@code tx=}, {@code opt=},
 * {@code lock=}, {@code nolock}, {@code reason=}, {@code temp=}, {@code drop=}, {@code vars=},
 * {@code schema=}, {@code autocommit=}, {@code iso=LEVEL/session|next}, {@code oneshot},
 * {@code dependent}, {@code token=}, {@code notoken}. In the SQL column, {@code \n} and {@code \t}
 * stand for a newline and a tab, and {@code <empty>} for the empty text.
 */
class ClassifierTableTest {

    private static final String CASES = "classifier-cases.tsv";
    private static final int MIN_CASES = 400;

    record Case(int line, String sql, List<String> expectations) {
    }

    static List<Case> cases() throws IOException {
        List<Case> cases = new ArrayList<>();
        try (InputStream in = ClassifierTableTest.class.getResourceAsStream(CASES)) {
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            int lineNumber = 0;
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                lineNumber++;
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                int tab = line.lastIndexOf('\t');
                if (tab < 0) {
                    throw new IllegalStateException(CASES + ":" + lineNumber + ": no tab");
                }
                String sql = unescape(line.substring(0, tab));
                List<String> expectations = Arrays.stream(line.substring(tab + 1).trim().split("\\s+"))
                        .filter(s -> !s.isEmpty()).collect(Collectors.toList());
                cases.add(new Case(lineNumber, sql, expectations));
            }
        }
        return cases;
    }

    private static String unescape(String sql) {
        if (sql.equals("<empty>")) {
            return "";
        }
        return sql.replace("\\n", "\n").replace("\\t", "\t");
    }

    @Test
    void tableHasEnoughDistinctCases() throws IOException {
        List<Case> all = cases();
        Set<String> distinct = new HashSet<>();
        all.forEach(c -> distinct.add(c.sql()));
        assertThat(distinct).hasSizeGreaterThanOrEqualTo(MIN_CASES);
        assertThat(distinct).as("duplicate SQL in the table").hasSize(all.size());
    }

    @TestFactory
    Stream<DynamicTest> classifierCases() throws IOException {
        EndpointView view = Fixtures.readWrite();
        return cases().stream().map(c -> DynamicTest.dynamicTest(
                CASES + ":" + c.line() + "  " + c.sql().replace('\n', ' '), () -> check(c, view)));
    }

    private static void check(Case c, EndpointView view) {
        Statement statement = SqlClassifier.classify(c.sql());
        RoutingSession session = Fixtures.sessionAfterReadOn(view, Fixtures.RO1);
        RouteDecision decision = Router.route(statement, session, view, ActiveRequests.NONE);
        String context = "line " + c.line() + ": " + c.sql() + "\n  classified " + statement + "\n  routed " + decision;
        String route = c.expectations().get(0);
        switch (route) {
            case "READ" -> assertThat(decision).as(context).isInstanceOf(RouteDecision.ToReplica.class);
            case "PRIMARY" -> assertThat(decision).as(context).isInstanceOf(RouteDecision.ToPrimary.class);
            case "ALL" -> assertThat(decision).as(context).isInstanceOf(RouteDecision.ToAllBackends.class);
            case "LOCAL" -> assertThat(decision).as(context).isInstanceOf(RouteDecision.AnswerLocally.class);
            case "PREVIOUS" -> assertThat(decision).as(context)
                    .isEqualTo(RouteDecision.replica(Fixtures.RO1, RouteReason.PREVIOUS_TARGET));
            default -> throw new IllegalStateException(context + ": unknown route " + route);
        }
        for (String e : c.expectations().subList(1, c.expectations().size())) {
            checkOne(e, statement, decision, context);
        }
    }

    private static void checkOne(String e, Statement s, RouteDecision d, String context) {
        String key = e.contains("=") ? e.substring(0, e.indexOf('=')) : e;
        String value = e.contains("=") ? e.substring(e.indexOf('=') + 1) : "";
        if (e.startsWith("+")) {
            assertThat(s.properties()).as(context).contains(StatementProperty.valueOf(e.substring(1)));
            return;
        }
        if (e.startsWith("-")) {
            assertThat(s.properties()).as(context).doesNotContain(StatementProperty.valueOf(e.substring(1)));
            return;
        }
        switch (key) {
            case "kind" -> assertThat(s.kind()).as(context).isEqualTo(StatementKind.valueOf(value));
            case "hint" -> assertThat(s.hint()).as(context).isEqualTo(Hint.valueOf(value));
            case "tx" -> assertThat(s.transactionControl()).as(context).isEqualTo(TransactionControl.valueOf(value));
            case "opt" -> assertThat(s.hasTransactionOption(TransactionOption.valueOf(value))).as(context).isTrue();
            case "lock" -> assertThat(s.lockCauses()).as(context).contains(LockCause.valueOf(value));
            case "nolock" -> assertThat(s.lockCauses()).as(context).isEmpty();
            case "reason" -> assertThat(d.reason()).as(context).isEqualTo(RouteReason.valueOf(value));
            case "temp" -> assertThat(s.temporaryTablesCreated()).as(context).containsExactly(table(value));
            case "drop" -> assertThat(s.tablesDropped()).as(context)
                    .containsExactlyElementsOf(Arrays.stream(value.split(",")).map(ClassifierTableTest::table).toList());
            case "vars" -> assertThat(s.sessionCommand().orElseThrow().variables()).as(context)
                    .containsExactlyInAnyOrder(value.split(","));
            case "schema" -> assertThat(s.schemaChange()).as(context).contains(value);
            case "autocommit" -> assertThat(s.autocommitChange()).as(context).isEqualTo(AutocommitChange.valueOf(value));
            case "iso" -> {
                String[] parts = value.split("/");
                assertThat(s.isolationChange()).as(context).contains(
                        new IsolationChange(IsolationLevel.valueOf(parts[0]), parts[1].equals("session")));
            }
            case "oneshot" -> assertThat(s.sessionCommand().orElseThrow().replayed()).as(context).isFalse();
            case "dependent" -> assertThat(s.sessionCommand().orElseThrow().dependsOnSessionState()).as(context).isTrue();
            case "token" -> assertThat(s.consistencyToken().map(GtidPosition::toString)).as(context).contains(value);
            case "notoken" -> assertThat(s.consistencyToken()).as(context).isEmpty();
            default -> throw new IllegalStateException(context + ": unknown expectation " + e);
        }
    }

    private static TableName table(String text) {
        int dot = text.indexOf('.');
        return dot < 0 ? TableName.of(text) : TableName.of(text.substring(0, dot), text.substring(dot + 1));
    }
}
