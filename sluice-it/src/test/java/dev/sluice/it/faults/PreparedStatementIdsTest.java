package dev.sluice.it.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.RawMysqlClient;
import dev.sluice.it.support.RawStatements;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A prepared statement's backend ids through the death of a backend connection, in one fixed
 * order of events: the statement is prepared on ro1 and on the primary; a COM_STMT_RESET is
 * answered by the primary while its copy to ro1 waits there (ro1 is paused); ro1 is killed, so
 * that connection fails under Sluice's own request, not under a client command; ro1 comes back,
 * and the next EXECUTE routed there must prepare the statement on the new connection — not send
 * the id the dead connection had (error 1243, "Unknown prepared statement handler").
 *
 * <p>The monitor's query timeout is long, so that the pause is never seen and the session never
 * leaves ro1 on the monitor's word: the connection's failure alone must be enough.
 */
class PreparedStatementIdsTest {
    private static final String READ = "SELECT CONCAT(@@server_id)";
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration BOUND = Duration.ofSeconds(30);

    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static ReadTargets reads;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        String nodes = SluiceHarness.nodesYaml(cluster).replace("interval: 500ms}",
                "interval: 500ms, query-timeout: 60s}");
        sluice = SluiceHarness.fromYaml(cluster, nodes + """
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:0
                    mode: read-write
                    weights: {primary: 0, ro1: 100, ro2: 0, ro3: 0}
                """);
        reads = new ReadTargets(sluice, "rw");
        await("ro1 readable").atMost(BOUND).until(() -> reads.readableReplicas().contains("ro1"));
    }

    @AfterAll
    static void stop() throws InterruptedException {
        sluice.close();
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @AfterEach
    void restore() {
        cluster.restoreHealthy();
    }

    @Test
    void aConnectionLostUnderSluicesOwnRequestTakesItsStatementIdsWithIt() throws Exception {
        SandboxNode ro1 = cluster.node("ro1");
        String ro1Id = Long.toString(ro1.serverId());
        String primaryId = Long.toString(cluster.primary().serverId());
        try (RawMysqlClient client = RawMysqlClient.login(sluice.port("rw"), SandboxCluster.APP_USER,
                SandboxCluster.APP_PASSWORD, "test", READ_TIMEOUT)) {
            RawStatements statements = new RawStatements(client);
            int id = statements.prepare(READ);
            assertThat(statements.execute(id)).as("a read runs on ro1").isEqualTo(List.of(List.of(ro1Id)));
            client.query("BEGIN");
            assertThat(statements.execute(id)).as("inside a transaction: the primary")
                    .isEqualTo(List.of(List.of(primaryId)));
            client.query("COMMIT");

            cluster.pause(ro1);
            statements.reset(id);
            cluster.kill(ro1);
            cluster.start(ro1);
            await("ro1 readable again").atMost(BOUND).until(() -> reads.readableReplicas().contains("ro1"));

            assertThat(statements.execute(id)).as("the read on ro1's new connection")
                    .isEqualTo(List.of(List.of(ro1Id)));
            assertThat(statements.execute(id)).isEqualTo(List.of(List.of(ro1Id)));
        }
    }
}
