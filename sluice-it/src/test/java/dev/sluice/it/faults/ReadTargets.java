package dev.sluice.it.faults;

import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import dev.sluice.server.admin.NodeDescription;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Where reads through a Sluice endpoint land, seen two ways: by asking the nodes that answer
 * ({@code @@server_id} of each read, the ground truth) and by Sluice's own DescribeDBProxy (each
 * node's {@code readable} flag and monitor state). The endpoint should use the {@code weighted}
 * balancer: with it, consecutive reads of one session go round every readable node, so a dozen
 * reads show the whole readable set.
 */
final class ReadTargets {
    /** Enough reads to go round three replicas several times. */
    static final int READS = 12;

    private final SluiceHarness sluice;
    private final String endpoint;
    private final Map<Long, String> nodeByServerId;

    ReadTargets(SluiceHarness sluice, String endpoint) {
        this.sluice = sluice;
        this.endpoint = endpoint;
        this.nodeByServerId = sluice.cluster().nodes().stream()
                .collect(Collectors.toMap(n -> (long) n.serverId(), SandboxNode::name));
    }

    /** The nodes that answer {@value #READS} plain reads of a new session (new sessions see new weights). */
    Set<String> nodesServingReads() {
        try (Connection c = DriverManager.getConnection(sluice.mariadbUrl(endpoint, "socketTimeout=20000"));
                Statement s = c.createStatement()) {
            Set<String> names = new TreeSet<>();
            for (int i = 0; i < READS; i++) {
                try (ResultSet rs = s.executeQuery("SELECT @@server_id")) {
                    rs.next();
                    names.add(nodeByServerId.getOrDefault(rs.getLong(1), "server_id " + rs.getLong(1)));
                }
            }
            return names;
        } catch (SQLException e) {
            throw new IllegalStateException("reads through endpoint '" + endpoint + "' failed: " + e.getMessage(), e);
        }
    }

    /** The replicas Sluice reports readable on the endpoint (BEHAVIOUR §4's readable set). */
    Set<String> readableReplicas() {
        return sluice.server().control().describe().nodes().stream()
                .filter(n -> n.role().equals("replica"))
                .filter(n -> Optional.ofNullable(n.endpoints().get(endpoint)).map(NodeDescription.NodeLoad::readable)
                        .orElse(false))
                .map(NodeDescription::name)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The monitor's view of one node. */
    NodeDescription node(String name) {
        return sluice.server().control().describe().nodes().stream().filter(n -> n.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("Sluice has no node " + name));
    }

    /** Names of sandbox nodes, sorted, for comparing with the sets above. */
    static Set<String> names(SandboxNode... nodes) {
        Set<String> out = new TreeSet<>();
        for (SandboxNode n : nodes) {
            out.add(n.name());
        }
        return out;
    }

    static Set<String> names(String... nodes) {
        return new TreeSet<>(Set.of(nodes));
    }

    SandboxCluster cluster() {
        return sluice.cluster();
    }
}
