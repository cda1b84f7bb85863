package dev.sluice.it.support;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Every integration test class leaves the shared sandbox as it found it: the same nodes running,
 * none paused, the same replication health, read_only and logging settings, databases and
 * accounts — and no client connection left on any node once the class has closed its Sluice
 * (a backend connection that outlives its proxy is a leak, and the next class would count it
 * against its own bounds). Registered for every class through JUnit's extension autodetection
 * (src/test/resources/META-INF/services); a class that breaks the rule fails, naming what differs.
 */
public final class SandboxAsFound implements BeforeAllCallback, AfterAllCallback {
    /** Connections of a closed Sluice are gone within this; the server notices closed sockets at once. */
    private static final Duration CONNECTIONS_GONE = Duration.ofSeconds(15);
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SandboxAsFound.class);
    private static final String BEFORE = "before";
    private static final String CLIENT_ACCOUNTS =
            "user NOT IN ('root', 'repl', 'system user', 'event_scheduler', 'unauthenticated user')";

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getStore(NAMESPACE).put(BEFORE, fingerprint(SandboxCluster.get()));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        SandboxCluster cluster = SandboxCluster.get();
        @SuppressWarnings("unchecked")
        Map<String, String> before = context.getStore(NAMESPACE).get(BEFORE, Map.class);
        List<String> differences = new ArrayList<>();
        try {
            await().atMost(CONNECTIONS_GONE).pollInterval(Duration.ofMillis(200))
                    .until(() -> clientConnections(cluster).isEmpty());
        } catch (ConditionTimeoutException e) {
            differences.add("client connections left after the class: " + clientConnections(cluster)
                    + "; their client ends: " + clientEnds(cluster) + "; " + SocketHolders.sluiceThreads());
            // Ended here, or every later class would fail on them too, for a reason not its own.
            killClientConnections(cluster);
        }
        Map<String, String> after = fingerprint(cluster);
        for (Map.Entry<String, String> e : before.entrySet()) {
            String now = after.get(e.getKey());
            if (!e.getValue().equals(now)) {
                differences.add(e.getKey() + ": was [" + e.getValue() + "], now [" + now + "]");
            }
        }
        if (!differences.isEmpty()) {
            // Left as it is, the next class would meet this and fail for a reason not its own.
            cluster.restoreHealthy();
            throw new AssertionError(context.getRequiredTestClass().getSimpleName()
                    + " did not leave the sandbox as it found it:\n  " + String.join("\n  ", differences));
        }
    }

    private static Map<String, String> fingerprint(SandboxCluster cluster) {
        Map<String, String> out = new LinkedHashMap<>();
        out.put("replication", String.join("; ", cluster.replicationProblems()));
        for (SandboxNode node : cluster.nodes()) {
            String prefix = node.name() + " ";
            out.put(prefix + "process", !cluster.isRunning(node) ? "stopped" : cluster.isPaused(node) ? "paused" : "running");
            if (!cluster.isRunning(node) || cluster.isPaused(node)) {
                continue;
            }
            out.put(prefix + "settings", cluster.rootQuery(node,
                    "SELECT CONCAT_WS(' ', @@read_only, @@general_log, @@log_output, @@max_connections)"));
            out.put(prefix + "databases", cluster.rootQuery(node,
                    "SELECT GROUP_CONCAT(schema_name ORDER BY schema_name) FROM information_schema.schemata"));
            out.put(prefix + "accounts", cluster.rootQuery(node,
                    "SELECT GROUP_CONCAT(CONCAT(user, '@', host) ORDER BY user, host) FROM mysql.user"));
        }
        return out;
    }

    private static void killClientConnections(SandboxCluster cluster) {
        for (SandboxNode node : cluster.nodes()) {
            if (!cluster.isRunning(node) || cluster.isPaused(node)) {
                continue;
            }
            String ids = cluster.rootQuery(node, "SELECT GROUP_CONCAT(id) FROM information_schema.processlist WHERE "
                    + CLIENT_ACCOUNTS);
            if (ids.isEmpty() || ids.equals("NULL")) {
                continue;
            }
            for (String id : ids.split(",")) {
                try {
                    cluster.rootQuery(node, "KILL " + id);
                } catch (RuntimeException gone) {
                    // It ended meanwhile.
                }
            }
        }
    }

    /** Who holds each client connection's socket, and what is queued on it: what a leak report needs. */
    private static List<String> clientEnds(SandboxCluster cluster) {
        List<String> out = new ArrayList<>();
        for (SandboxNode node : cluster.nodes()) {
            if (!cluster.isRunning(node) || cluster.isPaused(node)) {
                continue;
            }
            String hosts = cluster.rootQuery(node, "SELECT GROUP_CONCAT(CONCAT(id, ' ', host)) FROM "
                    + "information_schema.processlist WHERE " + CLIENT_ACCOUNTS);
            if (hosts.isEmpty() || hosts.equals("NULL")) {
                continue;
            }
            for (String idHost : hosts.split(",")) {
                String host = idHost.substring(idHost.indexOf(' ') + 1);
                int colon = host.lastIndexOf(':');
                out.add(node.name() + " " + idHost.substring(0, idHost.indexOf(' ')) + " "
                        + (colon < 0 ? host + ": not over TCP" : SocketHolders.describe(Integer.parseInt(host.substring(colon + 1)))));
            }
        }
        return out;
    }

    /** Connections of accounts other than the sandbox's own (root, replication, the server's threads). */
    private static List<String> clientConnections(SandboxCluster cluster) {
        List<String> out = new ArrayList<>();
        for (SandboxNode node : cluster.nodes()) {
            if (!cluster.isRunning(node) || cluster.isPaused(node)) {
                continue;
            }
            String list = cluster.rootQuery(node, "SELECT GROUP_CONCAT(CONCAT(id, ' ', user, ' ', command, ' ', "
                    + "time, 's ', IFNULL(LEFT(info, 60), '')) SEPARATOR ' | ') FROM information_schema.processlist "
                    + "WHERE " + CLIENT_ACCOUNTS);
            if (!list.isEmpty() && !list.equals("NULL")) {
                out.add(node.name() + ": " + list);
            }
        }
        return out;
    }
}
