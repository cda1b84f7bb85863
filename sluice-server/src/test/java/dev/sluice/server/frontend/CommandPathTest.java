package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.backend.FakeBackend;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The path of one command: routed, sent to its backend, its answer streamed back to the client
 * (docs/ARCHITECTURE.md, "Runtime shape" and "Sessions and backends").
 */
class CommandPathTest {
    private final SessionHarness h = SessionHarness.readWrite();

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void aReadGoesToAReplicaAndItsRowsReachTheClient() {
        h.query("SELECT 1");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT 1");
        assertThat(h.hasAnswer()).as("nothing before the backend answers").isFalse();
        ro1.rows(List.of("1"), List.of(List.of("1")));
        assertThat(h.rows()).containsExactly(List.of("1"));
        assertThat(h.nodes.of("primary")).as("the primary is not needed for a read").isEmpty();
    }

    @Test
    void aWriteGoesToThePrimary() {
        h.query("UPDATE t SET a = 1");
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo("UPDATE t SET a = 1");
        primary.ok();
        h.ok();
        assertThat(h.nodes.of("ro1")).isEmpty();
    }

    @Test
    void aPipelinedCommandWaitsUntilTheOneBeforeHasItsAnswer() {
        h.query("UPDATE t SET a = 1");
        h.query("UPDATE t SET a = 2");
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo("UPDATE t SET a = 1");
        assertThat(primary.hasCommand()).as("the second waits in Sluice").isFalse();
        primary.ok();
        h.ok();
        assertThat(primary.takeClientCommand()).isEqualTo("UPDATE t SET a = 2");
        primary.ok();
        h.ok();
    }

    @Test
    void readsAreSpreadOverTheReplicasByTheirWeights() {
        for (String expected : List.of("ro1", "ro2", "ro1")) {
            h.query("SELECT 1");
            FakeBackend replica = h.backend(expected);
            assertThat(replica.takeClientCommand()).as("equal weights alternate").isEqualTo("SELECT 1");
            replica.rows(List.of("1"), List.of(List.of("1")));
            h.rows();
        }
        assertThat(h.nodes.of("ro1")).as("one connection per node for the whole session").hasSize(1);
    }

    @Test
    void aLockingReadGoesToThePrimary() {
        h.query("SELECT a FROM t WHERE id = 1 FOR UPDATE");
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo("SELECT a FROM t WHERE id = 1 FOR UPDATE");
        primary.rows(List.of("a"), List.of(List.of("7")));
        assertThat(h.rows()).containsExactly(List.of("7"));
        assertThat(h.nodes.of("ro1")).isEmpty();
    }

    @Test
    void theForceMasterHintSendsAReadToThePrimaryDespiteItsWeightOfZero() {
        h.query("/*FORCE_MASTER*/ SELECT a FROM t");
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo("/*FORCE_MASTER*/ SELECT a FROM t");
        primary.rows(List.of("a"), List.of(List.of("1")));
        assertThat(h.rows()).containsExactly(List.of("1"));
        assertThat(h.nodes.of("ro1")).isEmpty();
    }

    @Test
    void aStoredFunctionCallRunsOnThePrimaryUnlessTheForceSlaveHintSendsItToAReplica() {
        h.query("SELECT shop.price(1)");
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo("SELECT shop.price(1)");
        primary.rows(List.of("p"), List.of(List.of("9")));
        h.rows();
        h.query("/*FORCE_SLAVE*/ SELECT shop.price(1)");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("/*FORCE_SLAVE*/ SELECT shop.price(1)");
        ro1.rows(List.of("p"), List.of(List.of("9")));
        assertThat(h.rows()).containsExactly(List.of("9"));
    }

    @Test
    void theForceSlaveHintDoesNotTakeAReadOutOfATransaction() {
        // The transaction's reads belong to its snapshot on the primary: the router ranks "inside a
        // transaction" above FORCE_SLAVE, while FORCE_MASTER comes before both.
        h.query("BEGIN");
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo("BEGIN");
        primary.ok(dev.sluice.protocol.ServerStatus.AUTOCOMMIT | dev.sluice.protocol.ServerStatus.IN_TRANS);
        h.ok();
        h.query("/*FORCE_SLAVE*/ SELECT a FROM t");
        assertThat(primary.takeClientCommand()).isEqualTo("/*FORCE_SLAVE*/ SELECT a FROM t");
        assertThat(h.nodes.of("ro1")).isEmpty();
    }

    @Test
    void anErrorFromTheServerReachesTheClientAndTheSessionGoesOn() {
        h.query("SELECT * FROM missing");
        FakeBackend ro1 = h.backend("ro1");
        ro1.takeClientCommand();
        ro1.error(1146, "42S02", "Table 'test.missing' doesn't exist");
        assertThat(h.error()).isEqualTo("1146 Table 'test.missing' doesn't exist");
        assertThat(h.nodes.of("ro2")).as("a server's error is the answer, not a failure to retry").isEmpty();
        h.query("SELECT 2");
        FakeBackend ro2 = h.backend("ro2");
        assertThat(ro2.takeClientCommand()).isEqualTo("SELECT 2");
        ro2.rows(List.of("2"), List.of(List.of("2")));
        assertThat(h.rows()).containsExactly(List.of("2"));
    }
}
