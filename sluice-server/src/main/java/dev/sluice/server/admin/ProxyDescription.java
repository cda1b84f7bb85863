package dev.sluice.server.admin;

import java.util.List;

/**
 * DescribeDBProxy.
 *
 * @param version Sluice's version
 * @param uptimeSeconds since start
 * @param endpoints every endpoint
 * @param nodes every node with its live state
 */
public record ProxyDescription(String version, long uptimeSeconds, List<EndpointDescription> endpoints,
        List<NodeDescription> nodes) {
}
