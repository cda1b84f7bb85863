package dev.sluice.server.admin;

import java.util.List;

/**
 * One Sluice instance of a cluster (BEHAVIOUR §11), as it registers itself in etcd under a lease and
 * as DescribeDBProxy lists it: an instance is listed while it renews its lease, so a stopped,
 * killed or cut-off instance leaves the list when its lease expires.
 *
 * @param name the instance's {@code cluster.name}
 * @param listen its endpoints' addresses, {@code endpoint=host:port}
 * @param admin its admin API's address, {@code host:port}
 */
public record InstanceDescription(String name, List<String> listen, String admin) {
    public InstanceDescription {
        listen = List.copyOf(listen);
    }
}
