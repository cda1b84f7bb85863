package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.backend.FakeBackend;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Commands Sluice answers itself, without asking a backend (docs/ARCHITECTURE.md, "Sessions and backends"). */
class LocalAnswersTest {
    private final SessionHarness h = SessionHarness.readWrite();

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void lastGtidIsNullBeforeTheSessionCommittedAnything() {
        h.query("SELECT sluice_last_gtid()");
        assertThat(h.rows()).containsExactly(Arrays.asList((String) null));
        assertThat(h.nodes.all()).as("answered without a backend").isEmpty();
    }

    @Test
    void lastGtidIsTheGtidOfTheSessionsLastTrackedCommit() {
        h.commit("0-1-101");
        h.commit("0-1-102");
        h.query("SELECT sluice_last_gtid()");
        assertThat(h.rows()).containsExactly(List.of("0-1-102"));
        assertThat(h.backend("primary").hasCommand()).isFalse();
        assertThat(h.nodes.of("ro1")).isEmpty();
    }

    @Test
    void lastGtidColumnIsNamedByItsAlias() {
        h.commit("0-1-101");
        h.query("SELECT sluice_last_gtid() AS token");
        assertThat(h.c.columnNames()).containsExactly("token");
    }

    @Test
    void aPingBeforeAnyBackendIsAnsweredBySluiceItself() {
        h.c.ping();
        h.ok();
        assertThat(h.nodes.all()).isEmpty();
    }

    @Test
    void aPingWithABackendOpenIsAskedOfThatBackend() {
        h.query("SELECT 1");
        FakeBackend ro1 = h.backend("ro1");
        ro1.takeClientCommand();
        ro1.rows(List.of("1"), List.of(List.of("1")));
        h.rows();
        h.c.ping();
        assertThat(ro1.takeClientCommand()).startsWith("COM_PING");
        assertThat(h.hasAnswer()).as("the server's answer is the client's").isFalse();
        ro1.ok();
        h.ok();
    }

    @Test
    void quitClosesTheClientConnectionAndItsBackends() {
        h.query("UPDATE t SET a = 1");
        FakeBackend primary = h.backend("primary");
        primary.takeClientCommand();
        primary.ok();
        h.ok();
        h.c.quit();
        assertThat(h.clientOpen()).isFalse();
        assertThat(primary.isOpen()).as("without a pool the backend goes with its session").isFalse();
        assertThat(h.hasAnswer()).as("COM_QUIT has no answer").isFalse();
    }
}
