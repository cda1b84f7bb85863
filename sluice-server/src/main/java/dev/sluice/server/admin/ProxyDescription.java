package dev.sluice.server.admin;

import com.fasterxml.jackson.annotation.JsonInclude;
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
 * @param instances in cluster mode, every instance registered in etcd (BEHAVIOUR §11); empty otherwise
 * @param leader in cluster mode, the name of the instance that holds the leadership, as this one
 *     last learnt it from etcd; null (left out) otherwise, or when no instance holds it
 */
public record ProxyDescription(String version, long uptimeSeconds, List<EndpointDescription> endpoints,
        List<NodeDescription> nodes, SwitchoverStatus switchover, FailoverStatus failover,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<InstanceDescription> instances,
        @JsonInclude(JsonInclude.Include.NON_NULL) String leader) {

    /** Without a leader known. */
    public ProxyDescription(String version, long uptimeSeconds, List<EndpointDescription> endpoints,
            List<NodeDescription> nodes, SwitchoverStatus switchover, FailoverStatus failover,
            List<InstanceDescription> instances) {
        this(version, uptimeSeconds, endpoints, nodes, switchover, failover, instances, null);
    }

    /** Outside cluster mode. */
    public ProxyDescription(String version, long uptimeSeconds, List<EndpointDescription> endpoints,
            List<NodeDescription> nodes, SwitchoverStatus switchover, FailoverStatus failover) {
        this(version, uptimeSeconds, endpoints, nodes, switchover, failover, List.of());
    }

    /** With no switchover or failover run yet. */
    public ProxyDescription(String version, long uptimeSeconds, List<EndpointDescription> endpoints,
            List<NodeDescription> nodes) {
        this(version, uptimeSeconds, endpoints, nodes, SwitchoverStatus.NONE, FailoverStatus.NONE);
    }

    public ProxyDescription {
        switchover = switchover == null ? SwitchoverStatus.NONE : switchover;
        failover = failover == null ? FailoverStatus.NONE : failover;
        instances = instances == null ? List.of() : List.copyOf(instances);
    }
}
