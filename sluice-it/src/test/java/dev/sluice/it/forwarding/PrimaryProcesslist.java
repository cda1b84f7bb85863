package dev.sluice.it.forwarding;

import static org.awaitility.Awaitility.await;

import dev.sluice.it.support.SandboxCluster;
import java.time.Duration;

/** The primary's view of Sluice's backend connections, by their server connection id. */
final class PrimaryProcesslist {
    private static final Duration GONE_TIMEOUT = Duration.ofSeconds(15);

    private PrimaryProcesslist() {
    }

    /** Waits until the primary no longer has connection {@code id} (its query aborted, its thread ended). */
    static void awaitGone(long id) {
        SandboxCluster cluster = SandboxCluster.get();
        await("backend connection " + id + " closed on the primary").atMost(GONE_TIMEOUT)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> "0".equals(cluster.queryString(cluster.primary(),
                        "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " + id)));
    }

    /** The statement connection {@code id} is running on the primary, or "" when idle or gone. */
    static String runningQuery(long id) {
        SandboxCluster cluster = SandboxCluster.get();
        String info = cluster.queryString(cluster.primary(),
                "SELECT COALESCE(MAX(INFO), '') FROM information_schema.PROCESSLIST WHERE ID = " + id);
        return info == null ? "" : info;
    }

    /** KILL on the primary, and waits until the connection is gone. */
    static void kill(long id) {
        SandboxCluster cluster = SandboxCluster.get();
        cluster.exec(cluster.primary(), "KILL " + id);
        awaitGone(id);
    }
}
