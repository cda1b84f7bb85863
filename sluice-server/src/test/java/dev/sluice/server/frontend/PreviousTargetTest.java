package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.ServerStatus;
import dev.sluice.protocol.response.OkPacket;
import dev.sluice.server.backend.FakeBackend;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Statements that ask about the previous one (SHOW WARNINGS, FOUND_ROWS() …) run where it ran:
 * only that connection holds the answer.
 */
class PreviousTargetTest {
    private SessionHarness h = SessionHarness.readWrite();

    @AfterEach
    void close() {
        h.close();
    }

    private FakeBackend readOnRo1(String sql) {
        h.query(sql);
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo(sql);
        ro1.rows(List.of("a"), List.of(List.of("1")));
        h.rows();
        return ro1;
    }

    @Test
    void showWarningsAfterAReadRunsOnTheReplicaThatServedTheRead() {
        FakeBackend ro1 = readOnRo1("SELECT CAST('x' AS SIGNED) AS a");
        h.query("SHOW WARNINGS");
        assertThat(ro1.takeClientCommand()).isEqualTo("SHOW WARNINGS");
        assertThat(h.nodes.of("ro2")).as("not balanced like a read").isEmpty();
    }

    @Test
    void showWarningsAfterAWriteRunsOnThePrimary() {
        readOnRo1("SELECT 1");
        h.query("UPDATE t SET a = 'x'");
        FakeBackend primary = h.backend("primary");
        primary.takeClientCommand();
        primary.ok();
        h.ok();
        h.query("SHOW WARNINGS");
        assertThat(primary.takeClientCommand()).isEqualTo("SHOW WARNINGS");
    }

    @Test
    void foundRowsAfterACalcFoundRowsReadRunsOnThatReplica() {
        FakeBackend ro1 = readOnRo1("SELECT SQL_CALC_FOUND_ROWS a FROM t LIMIT 1");
        h.query("SELECT FOUND_ROWS()");
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT FOUND_ROWS()");
        assertThat(h.nodes.of("ro2")).isEmpty();
    }

    @Test
    void underTheTransactionPoolAStatementWithWarningsKeepsItsConnectionForTheShowWarningsAfterIt() {
        h.close();
        h = SessionHarness.readWrite("connection-pool: transaction\n" + SessionHarness.READS_ON_REPLICAS);
        ClientEnd other = h.anotherClient();
        h.query("UPDATE t SET a = 'x'");
        FakeBackend first = h.backend("primary");
        first.takeClientCommand();
        first.okPacket(new OkPacket(1, 0, ServerStatus.AUTOCOMMIT, 1, "", List.of()));
        h.ok();
        other.query("UPDATE t SET a = 2");
        assertThat(first.hasCommand()).as("the warnings live on that connection").isFalse();
        FakeBackend second = h.backend("primary");
        assertThat(second).isNotSameAs(first);
        second.okAll();
        other.ok();
        h.query("SHOW WARNINGS");
        assertThat(first.takeClientCommand()).isEqualTo("SHOW WARNINGS");
    }
}
