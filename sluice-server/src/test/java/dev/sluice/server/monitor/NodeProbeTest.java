package dev.sluice.server.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.auth.Credential;
import dev.sluice.server.backend.FakeBackend;
import dev.sluice.server.backend.FakeNodes;
import dev.sluice.server.backend.LoginRequest;
import dev.sluice.server.net.HostPort;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One node's checks against fake backends on an event loop whose clock the test moves: a node is
 * unreachable only after {@code down-after} missed checks in a row, a missed check is tried again
 * at once, and an answered check starts the count again. A timeout that runs well after its deadline
 * (the proxy's own loop was held up) gets one more allowance instead of counting as a miss.
 */
class NodeProbeTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    private final EmbeddedChannel loopOwner = new EmbeddedChannel();
    private final FakeNodes nodes = new FakeNodes();
    private final List<String> results = new ArrayList<>();

    NodeProbeTest() {
        loopOwner.freezeTime();
        nodes.sessionTasks(loopOwner::runPendingTasks);
    }

    @AfterEach
    void release() {
        nodes.releaseAll();
        loopOwner.finishAndReleaseAll();
    }

    private NodeProbe probe(int downAfter) {
        LoginRequest login = new LoginRequest("monitor", new Credential.PlainPassword(
                "monitor".getBytes(StandardCharsets.UTF_8)), Optional.empty(), FakeNodes.SERVER_CAPABILITIES, 45,
                1 << 24, Map.of());
        return new NodeProbe("ro1", 1, HostPort.parse("127.0.0.1:13312"), (EventLoop) loopOwner.eventLoop(), nodes,
                login, TIMEOUT, TIMEOUT, downAfter, new NodeProbe.Results() {
                    @Override
                    public void observed(NodeProbe probe, NodeObservation observation) {
                        results.add("observed");
                    }

                    @Override
                    public void missed(NodeProbe probe, String reason, int inRow, int downAfter) {
                        results.add("missed " + inRow + "/" + downAfter);
                    }

                    @Override
                    public void unreachable(NodeProbe probe, String reason) {
                        results.add("unreachable");
                    }

                    @Override
                    public void stalled(NodeProbe probe, long lateMillis, long moreMillis) {
                        results.add("stalled " + lateMillis + " ms, " + moreMillis + " ms more");
                    }
                });
    }

    private void runTasks() {
        loopOwner.runPendingTasks();
        loopOwner.runScheduledPendingTasks();
        loopOwner.runPendingTasks();
    }

    private void passTime(Duration d) {
        loopOwner.advanceTimeBy(d.toMillis(), TimeUnit.MILLISECONDS);
        runTasks();
    }

    /** Answers a check's two queries on the newest connection, as a healthy primary would. */
    private void answerCheck() {
        FakeBackend b = nodes.last("ro1");
        assertThat(b.takeClientCommand()).startsWith("SELECT @@read_only");
        b.rows(List.of("ro", "pos", "v"), List.of(List.of("0", "0-1-7", "10.11.19-MariaDB")));
        assertThat(b.takeClientCommand()).isEqualTo(ObservationQueries.MARIADB_REPLICATION);
        b.rows(List.of("Slave_IO_Running"), List.of());
        runTasks();
    }

    @Test
    void aRefusingNodeIsUnreachableAfterDownAfterChecksTriedAtOnce() {
        nodes.refuse("ro1", true);
        probe(3).tick();
        runTasks();
        assertThat(results).containsExactly("missed 1/3", "missed 2/3", "unreachable");
    }

    @Test
    void withDownAfterOneTheFirstMissMarksTheNodeDown() {
        nodes.refuse("ro1", true);
        probe(1).tick();
        runTasks();
        assertThat(results).containsExactly("unreachable");
    }

    @Test
    void aNodeThatMissesOneCheckThenAnswersIsNeverDown() {
        NodeProbe probe = probe(2);
        probe.tick();
        runTasks();
        // A new connection's check may take its connect and its query allowance.
        passTime(TIMEOUT.plus(TIMEOUT));
        assertThat(results).containsExactly("missed 1/2");
        answerCheck();
        assertThat(results).containsExactly("missed 1/2", "observed");

        probe.tick();
        runTasks();
        passTime(TIMEOUT);
        assertThat(results).as("the answer in between started the count again")
                .containsExactly("missed 1/2", "observed", "missed 1/2");
        answerCheck();
        assertThat(results).containsExactly("missed 1/2", "observed", "missed 1/2", "observed");
    }

    @Test
    void aHungNodeIsDownAfterTwoCheckTimeoutsNotTwoIntervals() {
        probe(2).tick();
        runTasks();
        passTime(TIMEOUT.plus(TIMEOUT));
        assertThat(results).containsExactly("missed 1/2");
        passTime(TIMEOUT.plus(TIMEOUT));
        assertThat(results).containsExactly("missed 1/2", "unreachable");
    }

    @Test
    void aTimeoutThatRunsLateBecauseTheLoopStalledIsNotAMissWhenTheAnswerIsWaiting() {
        probe(1).tick();
        runTasks();
        // The loop is held up a second past the check's 2 s deadline; the answer arrived meanwhile.
        passTime(TIMEOUT.multipliedBy(3));
        assertThat(results).containsExactly("stalled 1000 ms, 2000 ms more");
        answerCheck();
        assertThat(results).as("with down-after 1, a miss would have marked the node down")
                .containsExactly("stalled 1000 ms, 2000 ms more", "observed");
    }

    @Test
    void aLateTimeoutGetsOneMoreAllowanceOnlySoAHungNodeIsStillFoundDown() {
        probe(1).tick();
        runTasks();
        passTime(TIMEOUT.multipliedBy(3));
        passTime(TIMEOUT.multipliedBy(4));
        assertThat(results).as("the second timeout ran late too, but counts")
                .containsExactly("stalled 1000 ms, 2000 ms more", "unreachable");
    }

    @Test
    void aTimeoutRunningOnlyALittleLateCountsAsAMiss() {
        probe(1).tick();
        runTasks();
        passTime(TIMEOUT.multipliedBy(2).plusMillis(CheckDeadline.STALL_MILLIS - 1));
        assertThat(results).containsExactly("unreachable");
    }
}
