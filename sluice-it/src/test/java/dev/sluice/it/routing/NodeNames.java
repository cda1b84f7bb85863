package dev.sluice.it.routing;

import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * Which sandbox node ran a statement: each node's {@code @@server_id}, asked directly (not through
 * Sluice), so a statement that returns {@code @@server_id} in its first column names its node.
 */
final class NodeNames {
    private final Map<Long, String> byServerId = new HashMap<>();

    NodeNames(SandboxCluster cluster) {
        for (SandboxNode n : cluster.nodes()) {
            byServerId.put(cluster.serverIdOf(n), n.name());
        }
    }

    /** The node whose {@code @@server_id} this is; fails on an id no sandbox node has. */
    String name(long serverId) {
        String name = byServerId.get(serverId);
        if (name == null) {
            throw new AssertionError("server_id " + serverId + " is none of the sandbox's nodes " + byServerId);
        }
        return name;
    }

    /** Runs a query whose first column is {@code @@server_id} and names the node that answered. */
    String where(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            if (!rs.next()) {
                throw new AssertionError("`" + sql + "` returned no row");
            }
            return name(rs.getLong(1));
        }
    }
}
