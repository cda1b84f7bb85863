package dev.sluice.routing.policy;

import dev.sluice.routing.topology.Node;
import dev.sluice.routing.topology.Topology;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The checks behind {@link EndpointPolicy#validate(Topology)}. Each problem names the key and says
 * what is allowed, because the reader is an operator editing YAML or calling the admin API.
 */
final class PolicyValidation {

    /**
     * Endpoint routing keeps candidate sets in 64-bit masks indexed by a node's position in the
     * endpoint, which bounds an endpoint's size; real clusters are far smaller.
     */
    static final int MAX_NODES_PER_ENDPOINT = 64;

    private PolicyValidation() {
    }

    static List<PolicyProblem> validate(EndpointPolicy policy, Topology topology) {
        List<PolicyProblem> problems = new ArrayList<>();
        String endpoint = "endpoint '" + policy.name() + "'";
        if (policy.name().isBlank()) {
            problems.add(new PolicyProblem("name", "must not be empty"));
        }
        String known = topology.nodes().stream().map(Node::name).collect(Collectors.joining(", "));
        Set<String> seen = new HashSet<>();
        for (String nodeName : policy.nodes()) {
            if (topology.node(nodeName).isEmpty()) {
                problems.add(new PolicyProblem("nodes", "unknown node '" + nodeName + "' (known nodes: " + known + ")"));
            }
            if (!seen.add(nodeName)) {
                problems.add(new PolicyProblem("nodes", "node '" + nodeName + "' is listed twice"));
            }
        }
        List<Node> nodes = policy.resolveNodes(topology);
        if (nodes.size() > MAX_NODES_PER_ENDPOINT) {
            problems.add(new PolicyProblem("nodes", "at most " + MAX_NODES_PER_ENDPOINT
                    + " nodes per endpoint, got " + nodes.size()));
        }
        boolean hasPrimary = nodes.stream().anyMatch(Node::isPrimary);
        boolean hasReplica = nodes.stream().anyMatch(Node::isReplica);
        if (policy.mode() == EndpointMode.READ_WRITE && !hasPrimary) {
            problems.add(new PolicyProblem("nodes", "read-write " + endpoint + " must include the primary"));
        }
        if (!hasReplica) {
            problems.add(new PolicyProblem("nodes", policy.mode().configName() + " " + endpoint
                    + " must include at least one replica"));
        }
        if (policy.weights() instanceof ReadWeights.Custom custom) {
            Set<String> endpointNodes = nodes.stream().map(Node::name).collect(Collectors.toSet());
            String listed = nodes.stream().map(Node::name).collect(Collectors.joining(", "));
            for (Map.Entry<String, Integer> entry : custom.byNodeName().entrySet()) {
                String key = "weights." + entry.getKey();
                int weight = entry.getValue();
                if (weight < 0 || weight > ReadWeights.MAX_WEIGHT) {
                    problems.add(new PolicyProblem(key, weight + " is outside 0.." + ReadWeights.MAX_WEIGHT));
                }
                if (!endpointNodes.contains(entry.getKey())) {
                    problems.add(new PolicyProblem(key, "unknown node '" + entry.getKey() + "' (nodes of "
                            + endpoint + ": " + listed + ")"));
                }
            }
        }
        if (policy.consistencyTimeout().isNegative()) {
            problems.add(new PolicyProblem("consistency-timeout", "must be 0 or more, got " + policy.consistencyTimeout()));
        }
        if (policy.maxReplicationLag().isNegative()) {
            problems.add(new PolicyProblem("max-replication-lag", "must be 0 or more, got " + policy.maxReplicationLag()));
        }
        if (policy.minReservedNodes() < 0) {
            problems.add(new PolicyProblem("min-reserved-nodes", "must be 0 or more, got " + policy.minReservedNodes()));
        }
        if (policy.maxConnections() < 1) {
            problems.add(new PolicyProblem("max-connections", "must be 1 or more, got " + policy.maxConnections()));
        }
        return List.copyOf(problems);
    }
}
