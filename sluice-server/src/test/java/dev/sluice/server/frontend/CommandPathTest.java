package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.backend.FakeBackend;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The path of one command: routed, sent to its backend, its answer streamed back to the client. */
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
}
