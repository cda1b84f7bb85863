package dev.sluice.server.admin;

import dev.sluice.server.switchover.FailoverStatus;
import dev.sluice.server.switchover.SwitchoverStatus;
import java.util.List;

/**
 * DescribeDBProxy.
 *
 * @param version Sluice's version
 * @param uptimeSeconds since start
 * @param endpoints every endpoint
 * @param nodes every node with its live state
 * @param switchover the switchover in progress, or the last one (BEHAVIOUR §10)
 * @param failover the failover in progress, or the last one, with what became of its old primary
 */
public record ProxyDescription(String version, long uptimeSeconds, List<EndpointDescription> endpoints,
        List<NodeDescription> nodes, SwitchoverStatus switchover, FailoverStatus failover) {

    /** With no switchover or failover run yet. */
    public ProxyDescription(String version, long uptimeSeconds, List<EndpointDescription> endpoints,
            List<NodeDescription> nodes) {
        this(version, uptimeSeconds, endpoints, nodes, SwitchoverStatus.NONE, FailoverStatus.NONE);
    }

    public ProxyDescription {
        switchover = switchover == null ? SwitchoverStatus.NONE : switchover;
        failover = failover == null ? FailoverStatus.NONE : failover;
    }
}
