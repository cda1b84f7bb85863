package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.backend.FakeBackend;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Session commands reach every backend of the session, and a backend opened later replays them
 * before it runs anything of the client's (docs/ARCHITECTURE.md, "Sessions and backends").
 */
class SessionStateReplayTest {
    private final SessionHarness h = SessionHarness.readWrite();

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void aSetIsReplayedOnABackendOpenedLaterBeforeTheClientsCommand() {
        h.write("SET sql_mode = 'ANSI'");
        h.query("SELECT 1");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SET sql_mode = 'ANSI'");
        ro1.ok();
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT 1");
        ro1.rows(List.of("1"), List.of(List.of("1")));
        assertThat(h.rows()).containsExactly(List.of("1"));
    }

    @Test
    void onlyTheLastSetOfAVariableIsReplayedAndInTheClientsOrder() {
        h.write("SET sql_mode = 'ANSI'");
        h.write("SET time_zone = '+00:00'");
        h.write("SET sql_mode = 'TRADITIONAL'");
        h.query("SELECT 1");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SET time_zone = '+00:00'");
        ro1.ok();
        assertThat(ro1.takeClientCommand()).isEqualTo("SET sql_mode = 'TRADITIONAL'");
        ro1.ok();
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT 1");
        ro1.rows(List.of("1"), List.of(List.of("1")));
        h.rows();
    }

    @Test
    void everySetOfAFlagSetIsReplayedBecauseEachChangesOnlyTheFlagsItNames() {
        h.write("SET optimizer_switch = 'mrr=on,mrr_sort_keys=on'");
        h.write("SET optimizer_switch = 'rowid_filter=off'");
        h.query("SELECT 1");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SET optimizer_switch = 'mrr=on,mrr_sort_keys=on'");
        ro1.ok();
        assertThat(ro1.takeClientCommand()).isEqualTo("SET optimizer_switch = 'rowid_filter=off'");
        ro1.ok();
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT 1");
        ro1.rows(List.of("1"), List.of(List.of("1")));
        assertThat(h.rows()).containsExactly(List.of("1"));
    }

    @Test
    void aUseStatementIsReplayedOnABackendOpenedLater() {
        h.write("USE shop");
        h.query("SELECT 1");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("USE shop");
        ro1.ok();
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT 1");
        ro1.rows(List.of("1"), List.of(List.of("1")));
        h.rows();
    }

    @Test
    void aReplicaThatRefusesAReplayedSetLeavesTheSessionAndTheReadGoesElsewhereWithoutError() {
        h.write("SET sql_mode = 'ANSI'");
        h.query("SELECT 1");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SET sql_mode = 'ANSI'");
        ro1.error(1231, "42000", "Variable 'sql_mode' can't be set to the value of 'ANSI'");
        ro1.okAll();
        assertThat(ro1.isOpen()).as("the refusing connection is given up").isFalse();
        FakeBackend ro2 = h.backend("ro2");
        assertThat(ro2.takeClientCommand()).isEqualTo("SET sql_mode = 'ANSI'");
        ro2.ok();
        assertThat(ro2.takeClientCommand()).isEqualTo("SELECT 1");
        ro2.rows(List.of("1"), List.of(List.of("1")));
        assertThat(h.rows()).as("the client never sees the replica's refusal").containsExactly(List.of("1"));
    }

    @Test
    void readsOfATemporaryTableStayOnThePrimaryWhileOtherReadsGoToReplicas() {
        FakeBackend primary = h.write("CREATE TEMPORARY TABLE scratch (a INT)");
        h.query("SELECT a FROM scratch");
        assertThat(primary.takeClientCommand()).isEqualTo("SELECT a FROM scratch");
        primary.rows(List.of("a"), List.of());
        assertThat(h.rows()).isEmpty();
        assertThat(h.nodes.of("ro1")).isEmpty();
        h.read("SELECT a FROM t", "ro1");
    }

    @Test
    void aUserVariableSetOnThePrimaryIsCopiedAsALiteralSoThatReadsOfItGoToAReplica() {
        FakeBackend ro1 = h.read("SELECT 1", "ro1");
        h.query("SET @v = 5");
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo("SET @v = 5");
        primary.ok();
        assertThat(primary.takeClientCommand()).as("Sluice reads back what the SET produced")
                .isEqualTo("SELECT @`v`, HEX(@`v`), CHARSET(@`v`), COLLATION(@`v`)");
        primary.rows(List.of("@`v`", "HEX(@`v`)", "CHARSET(@`v`)", "COLLATION(@`v`)"),
                List.of(List.of("5", "35", "utf8mb4", "utf8mb4_general_ci")));
        h.ok();
        h.query("SELECT @v");
        assertThat(ro1.takeClientCommand()).as("the replica already open gets the value as a literal")
                .isEqualTo("SET @`v` = _utf8mb4 X'35' COLLATE utf8mb4_general_ci");
        ro1.ok();
        FakeBackend ro2 = h.backend("ro2");
        assertThat(ro2.takeClientCommand()).as("replayed on a backend opened later")
                .isEqualTo("SET @`v` = _utf8mb4 X'35' COLLATE utf8mb4_general_ci");
        ro2.ok();
        assertThat(ro2.takeClientCommand()).isEqualTo("SELECT @v");
        ro2.rows(List.of("@v"), List.of(List.of("5")));
        assertThat(h.rows()).containsExactly(List.of("5"));
    }

    @Test
    void aResetConnectionForgetsTheSessionStateSoALaterBackendReplaysNothing() {
        h.write("SET sql_mode = 'ANSI'");
        h.c.resetConnection();
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).startsWith("COM_RESET_CONNECTION");
        primary.ok();
        h.ok();
        h.query("SELECT 1");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT 1");
    }
}
