package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.Capabilities;
import dev.sluice.server.backend.FakeBackend;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * After a multi-statement query or a stored-procedure call, every later statement of the
 * connection runs on the primary until COM_RESET_CONNECTION: what they left behind (a
 * procedure's session state, statements of unknown effect) is there only.
 */
class PinnedSessionTest {
    private final SessionHarness h = SessionHarness.readWrite(SessionHarness.READS_ON_REPLICAS,
            SessionHarness.CLIENT_CAPABILITIES | Capabilities.CLIENT_MULTI_STATEMENTS);

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void aMultiStatementQueryRunsOnThePrimaryAndPinsTheReadsAfterIt() {
        FakeBackend primary = h.write("SELECT 1; SELECT 2");
        h.query("SELECT 3");
        assertThat(primary.takeClientCommand()).isEqualTo("SELECT 3");
        assertThat(h.nodes.of("ro1")).isEmpty();
    }

    @Test
    void aProcedureCallPinsTheReadsAfterIt() {
        FakeBackend primary = h.write("CALL refresh_totals()");
        h.query("SELECT total FROM totals");
        assertThat(primary.takeClientCommand()).isEqualTo("SELECT total FROM totals");
        assertThat(h.nodes.of("ro1")).isEmpty();
    }

    @Test
    void aResetConnectionUnpinsTheSession() {
        FakeBackend primary = h.write("CALL refresh_totals()");
        h.c.resetConnection();
        assertThat(primary.takeClientCommand()).startsWith("COM_RESET_CONNECTION");
        primary.ok();
        h.ok();
        h.query("SELECT total FROM totals");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT total FROM totals");
        ro1.rows(List.of("total"), List.of(List.of("3")));
        assertThat(h.rows()).containsExactly(List.of("3"));
    }
}
