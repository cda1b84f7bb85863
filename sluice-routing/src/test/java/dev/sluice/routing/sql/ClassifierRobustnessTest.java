package dev.sluice.routing.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.routing.EndpointView;
import dev.sluice.routing.Fixtures;
import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.Router;
import dev.sluice.routing.balance.ActiveRequests;
import dev.sluice.routing.session.RoutingSession;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Bad SQL never throws, costs linear time and goes to the primary. */
class ClassifierRobustnessTest {

    private static final int SIXTEEN_MB = 16 * 1024 * 1024;
    /**
     * Tells linear from quadratic, not fast from slow: a linear scan of 16 MB takes tens of
     * milliseconds (seconds on a saturated shared machine), anything quadratic takes hours.
     */
    private static final long LINEAR_BUDGET_NANOS = 60_000_000_000L;

    private final EndpointView view = Fixtures.readWrite();

    private RouteDecision route(Statement statement) {
        return Router.route(statement, RoutingSession.open(view), view, ActiveRequests.NONE);
    }

    @Test
    void randomBytesNeverThrowAndNeverReachAReplicaUnlessTheySpellARead() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int i = 0; i < 20_000; i++) {
            byte[] bytes = new byte[random.nextInt(200)];
            random.nextBytes(bytes);
            int offset = bytes.length == 0 ? 0 : random.nextInt(bytes.length);
            Statement s = SqlClassifier.classify(bytes, offset, bytes.length - offset);
            RouteDecision d = route(s);
            if (d instanceof RouteDecision.ToReplica) {
                assertThat(s.kind().isRead()).as("seed %d, input %s", seed, Arrays.toString(bytes)).isTrue();
            }
        }
    }

    @Test
    void randomSqlLikeTextNeverThrows() {
        String[] pieces = {"SELECT", "FROM", "t", "(", ")", "'", "\"", "`", "/*", "*/", "--", "#", "\n", ";", ",",
            "@", "@@", ":=", "=", "BEGIN", "END", "CASE", "FOR", "UPDATE", "INTO", "SET", "WITH", "x", "1", "/*!",
            "/*M!", "\\", "FORCE_MASTER", "CONSISTENT_WITH=", "sluice_last_gtid", "TEMPORARY", "TABLE", "DROP",
            "CREATE", "STATEMENT", "NAMES", ".", " ", "\t", "\u00e9", "\u4e2d"};
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int i = 0; i < 20_000; i++) {
            StringBuilder sql = new StringBuilder();
            int n = random.nextInt(30);
            for (int k = 0; k < n; k++) {
                sql.append(pieces[random.nextInt(pieces.length)]).append(random.nextBoolean() ? " " : "");
            }
            Statement s = SqlClassifier.classify(sql.toString());
            assertThat(s).as("seed %d: %s", seed, sql).isNotNull();
            assertThat(route(s)).as("seed %d: %s", seed, sql).isNotNull();
        }
    }

    @Test
    void unterminatedTextGoesToThePrimary() {
        for (String sql : new String[] {"SELECT 'abc", "SELECT \"abc", "SELECT `abc", "SELECT 1 /* abc",
            "/* abc", "SELECT 'a\\", "/*FORCE_SLAVE*/ SELECT 'x", "SELECT @'x", "SELECT @@`x"}) {
            Statement s = SqlClassifier.classify(sql);
            assertThat(s.has(StatementProperty.MALFORMED)).as(sql).isTrue();
            assertThat(route(s)).as(sql).isInstanceOf(RouteDecision.ToPrimary.class);
        }
    }

    @Test
    void badOffsetsAreRefusedNotThrown() {
        byte[] bytes = "SELECT 1".getBytes(StandardCharsets.UTF_8);
        assertThat(SqlClassifier.classify(bytes, -1, 3).has(StatementProperty.MALFORMED)).isTrue();
        assertThat(SqlClassifier.classify(bytes, 5, 10).has(StatementProperty.MALFORMED)).isTrue();
        assertThat(SqlClassifier.classify(bytes, 0, -1).has(StatementProperty.MALFORMED)).isTrue();
        assertThat(SqlClassifier.classify(bytes, 7, 1).kind()).isEqualTo(StatementKind.UNKNOWN);
        assertThat(SqlClassifier.classify(bytes, 0, 8).kind()).isEqualTo(StatementKind.SELECT);
    }

    @Test
    void sixteenMegabytesOfBadTextClassifyInLinearTimeAndGoToThePrimary() {
        assertLinearAndPrimary(fill("SELECT '", "a"), "unterminated string");
        assertLinearAndPrimary(fill("SELECT 1 /*", "x"), "unterminated comment");
        assertLinearAndPrimary(fill("", "((((((((("), "parentheses");
        assertLinearAndPrimary(fill("SELECT ", "f(x) "), "calls");
        assertLinearAndPrimary(fill("", "BEGIN CASE ; "), "blocks and semicolons");
        assertLinearAndPrimary(fill("SET STATEMENT a=1 FOR ", "SET STATEMENT a=1 FOR "), "nested SET STATEMENT");
        assertLinearAndPrimary(fill("DROP TABLE ", "t, "), "huge DROP TABLE");
        assertLinearAndPrimary(fill("/*", "/*"), "comment openers");
        assertLinearAndPrimary(fill("", "@"), "at signs");
        assertLinearAndPrimary(fill("SELECT a FROM t; ", "x"), "multi-statement");
        byte[] garbage = new byte[SIXTEEN_MB];
        new Random(42).nextBytes(garbage);
        assertLinearAndPrimary(garbage, "random bytes");
        Statement hint = SqlClassifier.classify(fill("/*CONSISTENT_WITH=", "0-1-1,"), 0, SIXTEEN_MB);
        assertThat(hint.consistencyToken()).isEmpty();
    }

    private static byte[] fill(String prefix, String repeated) {
        byte[] out = new byte[SIXTEEN_MB];
        byte[] head = prefix.getBytes(StandardCharsets.UTF_8);
        byte[] unit = repeated.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(head, 0, out, 0, head.length);
        for (int i = head.length; i < out.length; i++) {
            out[i] = unit[(i - head.length) % unit.length];
        }
        return out;
    }

    private void assertLinearAndPrimary(byte[] text, String what) {
        long start = System.nanoTime();
        Statement s = SqlClassifier.classify(text, 0, text.length);
        long elapsed = System.nanoTime() - start;
        assertThat(elapsed).as("%s took %d ms", what, elapsed / 1_000_000).isLessThan(LINEAR_BUDGET_NANOS);
        assertThat(route(s)).as(what + ": " + s).isInstanceOf(RouteDecision.ToPrimary.class);
    }
}
