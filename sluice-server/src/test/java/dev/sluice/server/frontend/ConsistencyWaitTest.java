package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.ServerStatus;
import dev.sluice.server.backend.FakeBackend;
import io.netty.buffer.Unpooled;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Session consistency (docs/ARCHITECTURE.md, "Sessions and backends"): a read after the session's
 * own commit goes to a replica only once that replica has applied the commit — known from the
 * monitor, or waited for on the replica with the server's own wait function.
 */
class ConsistencyWaitTest {
    private static final String WAIT_FOR_101 = "SELECT MASTER_GTID_WAIT('0-1-101', 0.010) AS w";

    private SessionHarness h = SessionHarness.readsOnReplicas("consistency: session");

    @AfterEach
    void close() {
        h.close();
    }

    /** The test's session ends; another starts, on an endpoint with these keys. */
    private void reopen(String endpointKeys) {
        h.close();
        h = SessionHarness.readsOnReplicas(endpointKeys);
    }

    @Test
    void aReadBeforeAnyCommitGoesStraightToAReplica() {
        h.query("SELECT a FROM t");
        assertThat(h.backend("ro1").takeClientCommand()).isEqualTo("SELECT a FROM t");
    }

    @Test
    void aReadAfterACommitTheReplicasHaveNotAppliedWaitsOnTheReplicaFirst() {
        h.commit("0-1-101");
        h.query("SELECT a FROM t");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo(WAIT_FOR_101);
        assertThat(ro1.hasCommand()).as("the read waits for the wait's answer").isFalse();
        ro1.rows(List.of("w"), List.of(List.of("0")));
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT a FROM t");
        ro1.rows(List.of("a"), List.of(List.of("1")));
        assertThat(h.rows()).as("the wait's own answer is not the client's").containsExactly(List.of("1"));
    }

    @Test
    void aWaitThatTimesOutSendsTheReadToThePrimary() {
        h.commit("0-1-101");
        h.query("SELECT a FROM t");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo(WAIT_FOR_101);
        ro1.rows(List.of("w"), List.of(List.of("-1")));
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo("SELECT a FROM t");
        primary.rows(List.of("a"), List.of(List.of("1")));
        assertThat(h.rows()).containsExactly(List.of("1"));
        assertThat(ro1.hasCommand()).isFalse();
    }

    @Test
    void aCommitWhoseSessionStateCannotBeReadSendsReadsToThePrimaryUntilTheNextGtid() {
        commitWhoseGtidIsLost();
        FakeBackend primary = h.backend("primary");
        h.query("SELECT a FROM t");
        assertThat(primary.takeClientCommand()).as("the replicas have the last GTID known, maybe not this commit")
                .isEqualTo("SELECT a FROM t");
        primary.rows(List.of("a"), List.of(List.of("2")));
        assertThat(h.rows()).containsExactly(List.of("2"));

        h.commit("0-1-102");
        h.applied("ro1", "0-1-102");
        h.applied("ro2", "0-1-102");
        h.query("SELECT a FROM t");
        assertThat(h.backend("ro1").takeClientCommand()).as("a later GTID covers the lost one")
                .isEqualTo("SELECT a FROM t");
    }

    /** A commit after 0-1-100 whose OK's session state cannot be read: its GTID is lost. */
    private void commitWhoseGtidIsLost() {
        h.commit("0-1-100");
        h.applied("ro1", "0-1-100");
        h.applied("ro2", "0-1-100");
        h.query("INSERT INTO t VALUES (2)");
        FakeBackend primary = h.backend("primary");
        primary.takeClientCommand();
        // AUTOCOMMIT | SESSION_STATE_CHANGED, and a state block of 2 bytes followed by 3.
        primary.partial(Unpooled.wrappedBuffer(HexFormat.of().parseHex("0c000001" + "0001000240000000" + "02010101")));
        h.ok();
    }

    @Test
    void theTokenAskedAfterALostGtidIsThePrimarysPositionNotTheLastGtidKnown() {
        commitWhoseGtidIsLost();
        h.query("SELECT sluice_last_gtid()");
        FakeBackend position = h.nodes.last("primary");
        assertThat(position.login().user()).as("asked over the monitor's own connection").isEqualTo("monitor");
        assertThat(position.take()).isEqualTo("SELECT @@gtid_binlog_pos AS pos");
        assertThat(h.hasAnswer()).as("0-1-100 would let another connection miss the lost commit").isFalse();
        position.rows(List.of("pos"), List.of(List.of("0-1-101")));
        assertThat(h.rows()).containsExactly(List.of("0-1-101"));

        h.applied("ro1", "0-1-101");
        h.applied("ro2", "0-1-101");
        h.query("SELECT a FROM t");
        assertThat(h.backend("ro1").takeClientCommand())
                .as("the session knows its position again: a replica that has it may answer")
                .isEqualTo("SELECT a FROM t");
    }

    @Test
    void theTokenAskedAfterALostGtidIsAnErrorWhenThePrimaryCannotSay() {
        commitWhoseGtidIsLost();
        h.nodes.refuse("primary", true);
        h.query("SELECT sluice_last_gtid()");
        assertThat(h.error()).startsWith("1105").contains("sluice_last_gtid()").contains("retry when the primary");
        h.nodes.refuse("primary", false);
        h.query("SELECT a FROM t");
        assertThat(h.backend("primary").takeClientCommand()).as("the session goes on, its reads on the primary")
                .isEqualTo("SELECT a FROM t");
    }

    @Test
    void aWriteAnsweringRowsThroughEofPacketsSendsReadsToThePrimaryUntilTheNextGtid() {
        h.close();
        h = SessionHarness.readWrite(SessionHarness.READS_ON_REPLICAS + "\nconsistency: session",
                SessionHarness.CLIENT_CAPABILITIES & ~Capabilities.CLIENT_DEPRECATE_EOF);
        h.query("INSERT INTO t VALUES (2) RETURNING a");
        FakeBackend primary = h.backend("primary");
        primary.takeClientCommand();
        primary.rows(List.of("a"), List.of(List.of("2")), ServerStatus.AUTOCOMMIT | ServerStatus.SESSION_STATE_CHANGED);
        assertThat(h.rowsBetweenEofs()).containsExactly(List.of("2"));
        h.query("SELECT a FROM t");
        assertThat(primary.takeClientCommand()).as("the INSERT's GTID was not sent: only the primary surely has it")
                .isEqualTo("SELECT a FROM t");
        primary.rows(List.of("a"), List.of(List.of("2")));
        assertThat(h.rowsBetweenEofs()).containsExactly(List.of("2"));

        h.commit("0-1-102");
        h.applied("ro1", "0-1-102");
        h.applied("ro2", "0-1-102");
        h.query("SELECT a FROM t");
        assertThat(h.backend("ro1").takeClientCommand()).isEqualTo("SELECT a FROM t");
    }

    @Test
    void aReplicaTheMonitorSawApplyTheCommitTakesTheReadWithoutWaiting() {
        h.commit("0-1-101");
        h.applied("ro1", "0-1-101");
        h.applied("ro2", "0-1-101");
        h.query("SELECT a FROM t");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT a FROM t");
    }

    @Test
    void withTheErrorTimeoutActionAReadThatCannotBeConsistentGetsTheRetryError() {
        reopen("consistency: session\nconsistency-timeout-action: error");
        h.commit("0-1-101");
        h.query("SELECT a FROM t");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo(WAIT_FOR_101);
        ro1.rows(List.of("w"), List.of(List.of("-1")));
        assertThat(h.error()).contains("wait replication complete timeout, please retry");
        assertThat(h.backend("primary").hasCommand()).isFalse();
    }

    @Test
    void eventualConsistencyNeverWaits() {
        reopen("consistency: eventual");
        h.commit("0-1-101");
        h.query("SELECT a FROM t");
        assertThat(h.backend("ro1").takeClientCommand()).isEqualTo("SELECT a FROM t");
    }

    @Test
    void aReplicaThatRefusesTheReplayedStateBeforeItsWaitLeavesTheSessionAndTheClientSeesNoError() {
        h.write("SET query_cache_type = ON");
        h.commit("0-1-101");
        h.query("SELECT a FROM t");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).as("the replica opened for the wait gets the session's state first")
                .isEqualTo("SET query_cache_type = ON");
        ro1.error(1925, "HY000", "Query cache is globally disabled and you can't enable it only for this session");
        ro1.okAll();
        assertThat(ro1.isOpen()).as("the refusing connection is given up").isFalse();
        FakeBackend ro2 = h.backend("ro2");
        assertThat(ro2.takeClientCommand()).isEqualTo("SET query_cache_type = ON");
        ro2.ok();
        assertThat(ro2.takeClientCommand()).as("the read waits on the other replica").isEqualTo(WAIT_FOR_101);
        ro2.rows(List.of("w"), List.of(List.of("0")));
        assertThat(ro2.takeClientCommand()).isEqualTo("SELECT a FROM t");
        ro2.rows(List.of("a"), List.of(List.of("1")));
        assertThat(h.rows()).as("the client never sees the replica's refusal").containsExactly(List.of("1"));
    }

    @Test
    void aReplicaDyingDuringTheWaitHasTheReadRunOnThePrimaryWithoutAnError() {
        h.commit("0-1-101");
        h.query("SELECT a FROM t");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo(WAIT_FOR_101);
        ro1.die();
        h.runTasks();
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).as("as when the wait times out").isEqualTo("SELECT a FROM t");
        primary.rows(List.of("a"), List.of(List.of("1")));
        assertThat(h.rows()).containsExactly(List.of("1"));
    }

    @Test
    void aReplicaThatNeverAnswersItsWaitIsLeftAndTheReadRunsOnThePrimary() {
        h.commit("0-1-101");
        h.query("SELECT a FROM t");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo(WAIT_FOR_101);
        h.advanceTime(java.time.Duration.ofMillis(500));
        assertThat(h.backend("primary").hasCommand()).as("the server's own wait is given a grace").isFalse();
        h.advanceTime(java.time.Duration.ofMillis(600));
        assertThat(ro1.isOpen()).as("a replica that does not answer a bounded wait is hung").isFalse();
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo("SELECT a FROM t");
        primary.rows(List.of("a"), List.of(List.of("1")));
        assertThat(h.rows()).containsExactly(List.of("1"));
    }

    @Test
    void aGlobalReadAsksThePrimaryForItsPositionAndWaitsForItOnAReplica() {
        reopen("consistency: global");
        h.query("SELECT a FROM t");
        FakeBackend position = h.backend("primary");
        assertThat(position.login().user()).as("asked over the monitor's own connection").isEqualTo("monitor");
        assertThat(position.take()).isEqualTo("SELECT @@gtid_binlog_pos AS pos");
        position.rows(List.of("pos"), List.of(List.of("0-1-105")));
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT MASTER_GTID_WAIT('0-1-105', 0.010) AS w");
        ro1.rows(List.of("w"), List.of(List.of("0")));
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT a FROM t");
        ro1.rows(List.of("a"), List.of(List.of("1")));
        assertThat(h.rows()).containsExactly(List.of("1"));
    }
}
