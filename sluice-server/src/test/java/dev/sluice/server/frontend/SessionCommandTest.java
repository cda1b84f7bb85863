package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.backend.FakeBackend;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Session commands (SET, USE, COM_INIT_DB) run on every open backend of the session; the client
 * gets the primary's answer, and a backend whose answer differs from it must not stay in the
 * session with another state (docs/ARCHITECTURE.md, "Sessions and backends").
 */
class SessionCommandTest {
    private final SessionHarness h = SessionHarness.readWrite();

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void aSetGoesToEveryOpenBackendAndTheClientGetsThePrimarysAnswer() {
        FakeBackend ro1 = h.read("SELECT 1", "ro1");
        h.write("UPDATE t SET a = 1");
        h.query("SET sql_mode = 'ANSI'");
        FakeBackend primary = h.backend("primary");
        assertThat(ro1.takeClientCommand()).isEqualTo("SET sql_mode = 'ANSI'");
        assertThat(primary.takeClientCommand()).isEqualTo("SET sql_mode = 'ANSI'");
        ro1.ok();
        assertThat(h.hasAnswer()).as("the replica's answer is not the client's").isFalse();
        primary.ok();
        h.ok();
    }

    @Test
    void comInitDbGoesToEveryOpenBackendAndIsReplayedLater() {
        FakeBackend ro1 = h.read("SELECT 1", "ro1");
        h.write("UPDATE t SET a = 1");
        h.c.initDb("shop");
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo("COM_INIT_DB " + hex("shop"));
        assertThat(ro1.takeClientCommand()).isEqualTo("COM_INIT_DB " + hex("shop"));
        ro1.ok();
        primary.ok();
        h.ok();
        h.query("SELECT 2");
        FakeBackend ro2 = h.backend("ro2");
        assertThat(ro2.takeClientCommand()).as("the schema is replayed as a USE").contains("shop");
        ro2.ok();
        assertThat(ro2.takeClientCommand()).isEqualTo("SELECT 2");
        ro2.rows(List.of("1"), List.of(List.of("1")));
        h.rows();
    }

    @Test
    void aUseStatementGoesToEveryOpenBackend() {
        FakeBackend ro1 = h.read("SELECT 1", "ro1");
        h.write("UPDATE t SET a = 1");
        h.query("USE shop");
        FakeBackend primary = h.backend("primary");
        assertThat(ro1.takeClientCommand()).isEqualTo("USE shop");
        assertThat(primary.takeClientCommand()).isEqualTo("USE shop");
        ro1.ok();
        primary.ok();
        h.ok();
    }

    @Test
    void aReplicaThatRefusesALiveSetLeavesTheSessionUnseenByTheClient() {
        FakeBackend ro1 = h.read("SELECT 1", "ro1");
        h.write("UPDATE t SET a = 1");
        h.query("SET time_zone = 'Europe/Paris'");
        FakeBackend primary = h.backend("primary");
        assertThat(ro1.takeClientCommand()).isEqualTo("SET time_zone = 'Europe/Paris'");
        ro1.error(1298, "HY000", "Unknown or incorrect time zone: 'Europe/Paris'");
        assertThat(primary.takeClientCommand()).isEqualTo("SET time_zone = 'Europe/Paris'");
        primary.ok();
        h.ok();
        assertThat(ro1.isOpen()).isFalse();
        for (int i = 0; i < 2; i++) {
            h.query("SELECT 2");
            FakeBackend replica = h.nodes.all().get(h.nodes.all().size() - 1);
            assertThat(replica).isNotSameAs(ro1);
            replica.okAll();
            h.c.packets();
        }
        assertThat(h.nodes.of("ro1")).as("the node left the session: no new connection to it").hasSize(1);
    }

    @Test
    void aReplicaThatAcceptedASetThePrimaryRefusedServesNoMoreReadsWithThatState() {
        FakeBackend ro1 = h.read("SELECT 1", "ro1");
        h.write("UPDATE t SET a = 1");
        h.query("SET time_zone = 'Europe/Paris'");
        FakeBackend primary = h.backend("primary");
        assertThat(ro1.takeClientCommand()).isEqualTo("SET time_zone = 'Europe/Paris'");
        ro1.ok();
        assertThat(primary.takeClientCommand()).isEqualTo("SET time_zone = 'Europe/Paris'");
        primary.error(1298, "HY000", "Unknown or incorrect time zone: 'Europe/Paris'");
        assertThat(h.error()).startsWith("1298 ");
        boolean reset = false;
        for (String sql : List.of("SELECT 2", "SELECT 3")) {
            h.query(sql);
            List<String> onRo1 = new java.util.ArrayList<>();
            while (ro1.isOpen() && ro1.hasCommand()) {
                onRo1.add(ro1.take());
                ro1.ok();
            }
            reset |= onRo1.stream().anyMatch(c -> c.startsWith("COM_RESET_CONNECTION"));
            if (!onRo1.contains(sql)) {
                h.nodes.all().get(h.nodes.all().size() - 1).okAll();
            }
            assertThat(!onRo1.contains(sql) || reset)
                    .as("a read on the connection that took Europe/Paris, without a reset first: " + onRo1).isTrue();
            h.c.packets();
        }
    }

    private static String hex(String s) {
        return java.util.HexFormat.of().formatHex(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
}
