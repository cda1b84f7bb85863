package dev.sluice.server.config;

import java.util.List;
import java.util.Optional;

/**
 * The whole configuration file.
 *
 * @param zone the zone Sluice itself runs in (top-level {@code zone:}), for endpoints that prefer it
 * @param replication the account replicas replicate with, which a switchover needs (absent: no switchover)
 * @param process the shutdown timeout and the log format ({@code shutdown-timeout}, {@code log-format})
 * @param cluster where the shared configuration of cluster mode lives (absent: this file is the configuration)
 */
public record SluiceConfig(MonitorConfig monitor, List<NodeConfig> nodes, List<EndpointConfig> endpoints,
        AdminConfig admin, List<UserConfig> users, LimitsConfig limits, TlsConfig tls, Optional<String> zone,
        Optional<ReplicationAccount> replication, ProcessConfig process, Optional<ClusterConfig> cluster) {

    /** A configuration outside cluster mode, with the default shutdown timeout and log format. */
    public SluiceConfig(MonitorConfig monitor, List<NodeConfig> nodes, List<EndpointConfig> endpoints,
            AdminConfig admin, List<UserConfig> users, LimitsConfig limits, TlsConfig tls, Optional<String> zone,
            Optional<ReplicationAccount> replication) {
        this(monitor, nodes, endpoints, admin, users, limits, tls, zone, replication, ProcessConfig.DEFAULT,
                Optional.empty());
    }

    /** A configuration outside cluster mode. */
    public SluiceConfig(MonitorConfig monitor, List<NodeConfig> nodes, List<EndpointConfig> endpoints,
            AdminConfig admin, List<UserConfig> users, LimitsConfig limits, TlsConfig tls, Optional<String> zone,
            Optional<ReplicationAccount> replication, ProcessConfig process) {
        this(monitor, nodes, endpoints, admin, users, limits, tls, zone, replication, process, Optional.empty());
    }

    /** A configuration with the default shutdown timeout and log format. */
    public SluiceConfig(MonitorConfig monitor, List<NodeConfig> nodes, List<EndpointConfig> endpoints,
            AdminConfig admin, List<UserConfig> users, LimitsConfig limits, TlsConfig tls, Optional<String> zone,
            Optional<ReplicationAccount> replication, Optional<ClusterConfig> cluster) {
        this(monitor, nodes, endpoints, admin, users, limits, tls, zone, replication, ProcessConfig.DEFAULT, cluster);
    }

    /** A configuration without a replication account. */
    public SluiceConfig(MonitorConfig monitor, List<NodeConfig> nodes, List<EndpointConfig> endpoints,
            AdminConfig admin, List<UserConfig> users, LimitsConfig limits, TlsConfig tls, Optional<String> zone) {
        this(monitor, nodes, endpoints, admin, users, limits, tls, zone, Optional.empty());
    }

    /** A configuration with no zone of its own. */
    public SluiceConfig(MonitorConfig monitor, List<NodeConfig> nodes, List<EndpointConfig> endpoints,
            AdminConfig admin, List<UserConfig> users, LimitsConfig limits, TlsConfig tls) {
        this(monitor, nodes, endpoints, admin, users, limits, tls, Optional.empty());
    }

    /** A configuration with the default {@code tls:} section. */
    public SluiceConfig(MonitorConfig monitor, List<NodeConfig> nodes, List<EndpointConfig> endpoints,
            AdminConfig admin, List<UserConfig> users, LimitsConfig limits) {
        this(monitor, nodes, endpoints, admin, users, limits, TlsConfig.DEFAULT);
    }

    /** The same configuration with other nodes and endpoints (what the admin API changes). */
    public SluiceConfig with(List<NodeConfig> newNodes, List<EndpointConfig> newEndpoints) {
        return new SluiceConfig(monitor, newNodes, newEndpoints, admin, users, limits, tls, zone, replication, process,
                cluster);
    }

    public Optional<NodeConfig> node(String name) {
        return nodes.stream().filter(n -> n.name().equals(name)).findFirst();
    }

    public Optional<NodeConfig> primary() {
        return nodes.stream().filter(n -> n.role() == NodeConfig.Role.PRIMARY).findFirst();
    }

    /**
     * The same configuration with {@code node} as the primary and every other node a replica: the
     * roles after a switchover or failover. Unchanged when no node has that name.
     */
    public SluiceConfig withPrimary(String node) {
        if (node(node).isEmpty() || primary().map(NodeConfig::name).filter(node::equals).isPresent()) {
            return this;
        }
        List<NodeConfig> moved = nodes.stream().map(n -> new NodeConfig(n.name(), n.address(),
                n.name().equals(node) ? NodeConfig.Role.PRIMARY : NodeConfig.Role.REPLICA, n.zone(), n.capacity(),
                n.tls(), n.tlsCa())).toList();
        return with(moved, endpoints);
    }
}
