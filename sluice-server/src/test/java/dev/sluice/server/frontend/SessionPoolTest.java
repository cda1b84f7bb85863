package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.ServerStatus;
import dev.sluice.server.backend.FakeBackend;
import dev.sluice.server.pool.NodePoolUse;
import dev.sluice.server.pool.PoolUse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The session pool (docs/ARCHITECTURE.md, "Pools"): a client's backend connections outlive it and
 * serve the next client of the same account and database, as they are when the client left them
 * traceless, after a reset and the new session's replay otherwise. Reads go to ro1 only here, so
 * that consecutive clients meet the same connection.
 */
class SessionPoolTest {
    private final SessionHarness h = SessionHarness.readWrite(
            "connection-pool: session\nbalancer: weighted\nweights: {primary: 0, ro1: 100, ro2: 0}");

    @AfterEach
    void close() {
        h.close();
    }

    private FakeBackend firstClientReads() {
        h.query("SELECT 1");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT 1");
        ro1.rows(List.of("1"), List.of(List.of("1")));
        h.rows();
        return ro1;
    }

    @Test
    void thePoolsUseIsReportedPerEndpointAndNode() {
        firstClientReads();
        assertThat(h.proxy.poolUse(Duration.ofSeconds(1))).as("leased to the session")
                .contains(new NodePoolUse("rw", "ro1", new PoolUse(1, 0, 0)))
                .contains(new NodePoolUse("rw", "ro2", PoolUse.NONE));
        h.c.quit();
        assertThat(h.proxy.poolUse(Duration.ofSeconds(1))).as("back in the pool")
                .contains(new NodePoolUse("rw", "ro1", new PoolUse(0, 1, 0)));
    }

    @Test
    void aConnectionLeftTracelessServesTheNextClientAsItIs() {
        FakeBackend ro1 = firstClientReads();
        h.c.quit();
        assertThat(ro1.isOpen()).as("kept in the pool").isTrue();
        ClientEnd next = h.anotherClient();
        next.query("SELECT 2");
        assertThat(ro1.take()).as("no reset, no replay").isEqualTo("SELECT 2");
        ro1.rows(List.of("2"), List.of(List.of("2")));
        assertThat(next.rows()).containsExactly(List.of("2"));
        assertThat(h.nodes.of("ro1")).hasSize(1);
    }

    @Test
    void aSetTheBackendAnsweredOnceIsAnsweredWithoutABackendForTheNextClientInTheSameState() {
        h.query("SET sql_mode = 'ANSI'");
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo("SET sql_mode = 'ANSI'");
        primary.ok();
        h.ok();
        h.c.quit();
        primary.okAll();
        ClientEnd next = h.anotherClient();
        next.query("SET sql_mode = 'ANSI'");
        next.ok();
        assertThat(h.nodes.all()).as("no new connection").hasSize(1);
        assertThat(primary.hasCommand()).as("the learned answer served it").isFalse();
    }

    @Test
    void aConnectionWhoseStateTheClientChangedIsResetBeforeTheNextClientGetsIt() {
        h.query("SET sql_mode = 'ANSI'");
        FakeBackend primary = h.backend("primary");
        primary.takeClientCommand();
        primary.ok();
        h.ok();
        h.c.quit();
        ClientEnd next = h.anotherClient();
        next.query("UPDATE t SET a = 1");
        assertThat(primary.take()).startsWith("COM_RESET_CONNECTION");
        primary.ok();
        assertThat(primary.takeClientCommand()).isEqualTo("USE `test`");
        primary.ok();
        assertThat(primary.takeClientCommand()).as("the other client's ANSI mode is gone")
                .isEqualTo("UPDATE t SET a = 1");
        primary.ok();
        next.ok();
        assertThat(h.nodes.of("primary")).hasSize(1);
    }

    @Test
    void aConnectionLeftInsideATransactionIsResetOnItsWayBackBeforeItServesTheNextClient() {
        h.query("BEGIN");
        FakeBackend primary = h.backend("primary");
        primary.takeClientCommand();
        primary.ok(ServerStatus.AUTOCOMMIT | ServerStatus.IN_TRANS);
        h.ok();
        h.c.quit();
        assertThat(primary.take()).as("the open transaction is rolled back at once").startsWith("COM_RESET_CONNECTION");
        primary.ok();
        primary.okAll();
        ClientEnd next = h.anotherClient();
        next.query("UPDATE t SET a = 1");
        assertThat(primary.takeClientCommand()).as("the reset connection needs nothing more")
                .isEqualTo("UPDATE t SET a = 1");
        primary.ok();
        next.ok();
        assertThat(h.nodes.of("primary")).hasSize(1);
    }
}
