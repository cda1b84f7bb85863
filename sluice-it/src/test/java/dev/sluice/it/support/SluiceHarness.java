package dev.sluice.it.support;

import dev.sluice.server.SluiceServer;
import dev.sluice.server.config.ConfigLoader;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A Sluice started in the test JVM against the sandbox cluster. The YAML given is the
 * {@code endpoints:} list (and any other top-level section); nodes and the monitor account are
 * filled in from the sandbox, and endpoints may listen on port 0 (any free port).
 */
public final class SluiceHarness implements AutoCloseable {
    static {
        NettyLeaks.install();
    }

    private final SluiceServer server;
    private final SandboxCluster cluster;

    private SluiceHarness(SluiceServer server, SandboxCluster cluster) {
        this.server = server;
        this.cluster = cluster;
    }

    /** Starts Sluice with the sandbox's nodes and the given extra YAML (endpoints etc.). */
    public static SluiceHarness start(SandboxCluster cluster, String yaml) {
        return start(cluster, yaml, "");
    }

    /** As {@link #start(SandboxCluster, String)}, with {@code nodeKeys} (e.g. {@code "tls: off"}) added to every node. */
    public static SluiceHarness start(SandboxCluster cluster, String yaml, String nodeKeys) {
        String config = nodesYaml(cluster, nodeKeys) + yaml;
        try {
            return new SluiceHarness(SluiceServer.start(ConfigLoader.parse(config)), cluster);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Starts Sluice from a configuration file, as {@code sluice run --config FILE} does: the admin
     * API's {@code ?persist=true} writes the running configuration back to that file.
     */
    public static SluiceHarness fromFile(SandboxCluster cluster, Path configFile) {
        try {
            return new SluiceHarness(SluiceServer.start(ConfigLoader.load(configFile), Optional.of(configFile)),
                    cluster);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Starts Sluice from a whole configuration (monitor, admin, nodes and endpoints sections), not from a file. */
    public static SluiceHarness fromYaml(SandboxCluster cluster, String wholeConfig) {
        try {
            return new SluiceHarness(SluiceServer.start(ConfigLoader.parse(wholeConfig)), cluster);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** One read-write endpoint {@code rw} over every node, plus what {@code extra} adds to it. */
    public static SluiceHarness readWrite(SandboxCluster cluster, String extraEndpointKeys) {
        return start(cluster, """
                endpoints:
                  - name: rw
                    listen: 127.0.0.1:0
                    mode: read-write
                """ + indent(extraEndpointKeys, "    "));
    }

    private static String indent(String text, String prefix) {
        return text.lines().map(l -> prefix + l).collect(Collectors.joining("\n", "", text.isEmpty() ? "" : "\n"));
    }

    public static String nodesYaml(SandboxCluster cluster) {
        return nodesYaml(cluster, "", cluster.nodes(), "");
    }

    private static String nodesYaml(SandboxCluster cluster, String nodeKeys) {
        return nodesYaml(cluster, "", cluster.nodes(), nodeKeys);
    }

    /**
     * The monitor, admin and nodes sections for the sandbox: {@code adminKeys} are added to the
     * admin section (e.g. {@code "token: s3cret"}), and only {@code nodes} are configured (a test
     * may add the others at run time).
     */
    public static String nodesYaml(SandboxCluster cluster, String adminKeys, List<SandboxNode> nodes) {
        return nodesYaml(cluster, adminKeys, nodes, "");
    }

    private static String nodesYaml(SandboxCluster cluster, String adminKeys, List<SandboxNode> nodes,
            String nodeKeys) {
        StringBuilder b = new StringBuilder();
        b.append("monitor: {user: ").append(SandboxCluster.MONITOR_USER).append(", password: ")
                .append(SandboxCluster.MONITOR_PASSWORD).append(", interval: 500ms}\n");
        b.append("admin: {listen: 127.0.0.1:0").append(adminKeys.isEmpty() ? "" : ", " + adminKeys).append("}\n");
        b.append("nodes:\n");
        for (SandboxNode n : nodes) {
            b.append("  - {name: ").append(n.name()).append(", address: ").append(n.address())
                    .append(", role: ").append(n.isPrimary() ? "primary" : "replica")
                    .append(nodeKeys.isEmpty() ? "" : ", " + nodeKeys).append("}\n");
        }
        return b.toString();
    }

    public SluiceServer server() {
        return server;
    }

    public InetSocketAddress address(String endpoint) {
        return server.endpointAddress(endpoint)
                .orElseThrow(() -> new IllegalArgumentException("no endpoint " + endpoint));
    }

    public int port(String endpoint) {
        return address(endpoint).getPort();
    }

    /** A MariaDB Connector/J URL to an endpoint, database {@code test}, with extra options. */
    public String mariadbUrl(String endpoint, String options) {
        return "jdbc:mariadb://127.0.0.1:" + port(endpoint) + "/test?user=" + SandboxCluster.APP_USER + "&password="
                + SandboxCluster.APP_PASSWORD + (options.isEmpty() ? "" : "&" + options);
    }

    /** A MySQL Connector/J URL to an endpoint, database {@code test}, with extra options. */
    public String mysqlUrl(String endpoint, String options) {
        return "jdbc:mysql://127.0.0.1:" + port(endpoint) + "/test?user=" + SandboxCluster.APP_USER + "&password="
                + SandboxCluster.APP_PASSWORD + "&sslMode=DISABLED&allowPublicKeyRetrieval=true"
                + (options.isEmpty() ? "" : "&" + options);
    }

    public Connection connect(String endpoint) throws SQLException {
        return DriverManager.getConnection(mariadbUrl(endpoint, ""));
    }

    /** Where the admin API and dashboard listen. */
    public InetSocketAddress adminAddress() {
        return server.adminAddress();
    }

    public SandboxCluster cluster() {
        return cluster;
    }

    @Override
    public void close() {
        server.close();
    }
}
