package dev.sluice.it.forwarding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.support.GuardedSluice;
import dev.sluice.it.support.RawMysqlClient;
import dev.sluice.it.support.RawMysqlClient.RawPacket;
import dev.sluice.it.support.SandboxCluster;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Either end goes away in the middle of a big result. A client that disconnects must take its
 * backend query and connection with it; a backend that dies must give the client an ERR or a
 * closed connection — never a hang — and nobody else may notice.
 */
class MidResultFailureTest {
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(20);
    /** 3 GB if read to the end: the server is still producing it when the test acts. */
    private static final String HUGE_QUERY = "SELECT seq, REPEAT('x', 1048576) FROM seq_1_to_3000";

    @RegisterExtension
    static final GuardedSluice sluice = GuardedSluice.with(ForwardingEndpoint.SECTION);

    private static RawMysqlClient login() throws Exception {
        return RawMysqlClient.login(sluice.port("rw"), SandboxCluster.APP_USER, SandboxCluster.APP_PASSWORD, "test",
                READ_TIMEOUT);
    }

    @Test
    void aClientThatDisconnectsMidResultTakesItsBackendQueryWithIt() throws Exception {
        long backend;
        try (RawMysqlClient c = login()) {
            backend = c.connectionId();
            c.sendQuery(HUGE_QUERY);
            assertThat(c.trickle(3L << 20, 64 * 1024, 0)).isEqualTo(3L << 20);
            // Sluice has stopped reading the backend by now; the server is blocked mid-result.
            assertThat(PrimaryProcesslist.runningQuery(backend)).as("the query runs on the primary").contains("seq_1_to_3000");
        }
        PrimaryProcesslist.awaitGone(backend);
    }

    @Test
    void aClientThatDisconnectsMidResultWithoutReadingAnything() throws Exception {
        long backend;
        try (RawMysqlClient c = login()) {
            backend = c.connectionId();
            c.sendQuery(HUGE_QUERY);
            await("the query runs on the primary").atMost(Duration.ofSeconds(10))
                    .until(() -> PrimaryProcesslist.runningQuery(backend).contains("seq_1_to_3000"));
        }
        PrimaryProcesslist.awaitGone(backend);
    }

    @Test
    void aBackendKilledMidResultGivesTheClientAnErrorOrACloseNotAHang() throws Exception {
        try (RawMysqlClient c = login()) {
            long backend = c.connectionId();
            c.sendQuery(HUGE_QUERY);
            RawPacket columns = c.readPacket();
            assertThat(columns.payload()).containsExactly(2);
            c.readPacket();
            c.readPacket();
            assertThat(c.readPacket().isEof()).isTrue();
            int rows = 0;
            for (; rows < 3; rows++) {
                RawPacket row = c.readPacket();
                assertThat(row.payload().length).isGreaterThan(1_048_576);
            }
            SandboxCluster cluster = sluice.cluster();
            cluster.exec(cluster.primary(), "KILL " + backend);
            // Read on (slowly) until an ERR or the end of the connection; a hang fails on the read timeout.
            Optional<RawPacket> p;
            while ((p = c.readPacketOrClose()).isPresent() && !p.get().isErr() && !p.get().isEof()) {
                rows++;
            }
            assertThat(rows).as("rows before the end").isLessThan(3000);
            if (p.isPresent()) {
                assertThat(p.get().isErr()).as("the result does not end as if complete: %s", p.get()).isTrue();
            }
        }
        // A new session works.
        try (RawMysqlClient c = login()) {
            assertThat(c.query("SELECT 'after the kill'")).containsExactly(List.of("after the kill"));
        }
    }

    @Test
    void aBackendKilledWhileTheClientIsNotReadingDoesNotHangTheClientLater() throws Exception {
        try (RawMysqlClient c = login()) {
            long backend = c.connectionId();
            c.sendQuery(HUGE_QUERY);
            await("the query runs on the primary").atMost(Duration.ofSeconds(10))
                    .until(() -> PrimaryProcesslist.runningQuery(backend).contains("seq_1_to_3000"));
            SandboxCluster cluster = sluice.cluster();
            cluster.exec(cluster.primary(), "KILL " + backend);
            PrimaryProcesslist.awaitGone(backend);
            // Whatever was forwarded before the kill, then an ERR or the end of the connection.
            Optional<RawPacket> p;
            int packets = 0;
            while ((p = c.readPacketOrClose()).isPresent() && !p.get().isErr()) {
                packets++;
            }
            assertThat(packets).as("packets before the end (metadata, rows)").isLessThan(3000);
        }
    }
}
