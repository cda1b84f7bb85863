package dev.sluice.routing.policy;

import dev.sluice.routing.topology.Node;
import dev.sluice.routing.topology.Topology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The settings of one endpoint (BEHAVIOUR §1–§8, the {@code endpoints:} entries of the configuration).
 * Immutable: a ModifyDBProxyEndpoint call builds a new policy with the withers and publishes it;
 * sessions read the current one per statement. {@link #validate(Topology)} says what is wrong in
 * words the operator can act on.
 *
 * @param name                  endpoint name, used in error messages
 * @param mode                  read-write or read-only
 * @param nodes                 node names in configuration order; empty means every node of the cluster
 * @param weights               read weights
 * @param balancer              how reads pick a node
 * @param consistency           how fresh a read must be
 * @param consistencyTimeout    how long a read may wait for a replica to catch up
 * @param timeoutAction         what to do when it did not
 * @param maxReplicationLag     replicas lagging more take no reads
 * @param minReservedNodes      keep this many replicas readable even when they fail the lag rules
 * @param transactionSplitting  send a transaction's reads before its first write to replicas
 * @param connectionPool        backend connection reuse
 * @param allow                 client address CIDRs (carried for the server; not interpreted here)
 * @param maxConnections        client connections accepted at once
 * @param preferredZone         reads go to readable replicas of this zone, and to the others only
 *                              when none is readable (BEHAVIOUR §2, nearest zone); empty: no preference
 */
public record EndpointPolicy(String name, EndpointMode mode, List<String> nodes, ReadWeights weights,
                             BalancerKind balancer, ConsistencyLevel consistency, Duration consistencyTimeout,
                             TimeoutAction timeoutAction, Duration maxReplicationLag, int minReservedNodes,
                             boolean transactionSplitting, ConnectionPoolMode connectionPool, List<String> allow,
                             int maxConnections, Optional<String> preferredZone) {

    /** BEHAVIOUR §5 default read consistency timeout. */
    public static final Duration DEFAULT_CONSISTENCY_TIMEOUT = Duration.ofMillis(10);
    /** BEHAVIOUR §4 default latency threshold. */
    public static final Duration DEFAULT_MAX_REPLICATION_LAG = Duration.ofSeconds(30);
    /** Default cap on client connections per endpoint. */
    public static final int DEFAULT_MAX_CONNECTIONS = 10_000;

    public EndpointPolicy {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(mode, "mode");
        nodes = List.copyOf(nodes);
        Objects.requireNonNull(weights, "weights");
        Objects.requireNonNull(balancer, "balancer");
        Objects.requireNonNull(consistency, "consistency");
        Objects.requireNonNull(consistencyTimeout, "consistencyTimeout");
        Objects.requireNonNull(timeoutAction, "timeoutAction");
        Objects.requireNonNull(maxReplicationLag, "maxReplicationLag");
        Objects.requireNonNull(connectionPool, "connectionPool");
        allow = List.copyOf(allow);
        Objects.requireNonNull(preferredZone, "preferredZone");
    }

    /** An endpoint without a zone preference. */
    public EndpointPolicy(String name, EndpointMode mode, List<String> nodes, ReadWeights weights,
                          BalancerKind balancer, ConsistencyLevel consistency, Duration consistencyTimeout,
                          TimeoutAction timeoutAction, Duration maxReplicationLag, int minReservedNodes,
                          boolean transactionSplitting, ConnectionPoolMode connectionPool, List<String> allow,
                          int maxConnections) {
        this(name, mode, nodes, weights, balancer, consistency, consistencyTimeout, timeoutAction, maxReplicationLag,
                minReservedNodes, transactionSplitting, connectionPool, allow, maxConnections, Optional.empty());
    }

    /** A read-write endpoint over every node with every setting at its default (BEHAVIOUR §1–§8). */
    public static EndpointPolicy defaults(String name) {
        return new EndpointPolicy(name, EndpointMode.READ_WRITE, List.of(), ReadWeights.AUTO,
                BalancerKind.LEAST_ACTIVE, ConsistencyLevel.EVENTUAL, DEFAULT_CONSISTENCY_TIMEOUT,
                TimeoutAction.PRIMARY, DEFAULT_MAX_REPLICATION_LAG, 0, false, ConnectionPoolMode.NONE,
                List.of(), DEFAULT_MAX_CONNECTIONS);
    }

    /** The endpoint's nodes that exist in {@code topology}, in the endpoint's configuration order. */
    public List<Node> resolveNodes(Topology topology) {
        if (nodes.isEmpty()) {
            return topology.nodes();
        }
        List<Node> resolved = new ArrayList<>(nodes.size());
        for (String nodeName : nodes) {
            topology.node(nodeName).ifPresent(resolved::add);
        }
        return resolved;
    }

    /** The read weight {@code node} has on this endpoint. */
    public int weightOf(Node node) {
        return weights.weightOf(node, mode);
    }

    /** Every problem of this policy against {@code topology}; empty when it can be applied. */
    public List<PolicyProblem> validate(Topology topology) {
        return PolicyValidation.validate(this, topology);
    }

    public EndpointPolicy withMode(EndpointMode value) {
        return new EndpointPolicy(name, value, nodes, weights, balancer, consistency, consistencyTimeout,
                timeoutAction, maxReplicationLag, minReservedNodes, transactionSplitting, connectionPool, allow,
                maxConnections, preferredZone);
    }

    public EndpointPolicy withNodes(List<String> value) {
        return new EndpointPolicy(name, mode, value, weights, balancer, consistency, consistencyTimeout,
                timeoutAction, maxReplicationLag, minReservedNodes, transactionSplitting, connectionPool, allow,
                maxConnections, preferredZone);
    }

    public EndpointPolicy withWeights(ReadWeights value) {
        return new EndpointPolicy(name, mode, nodes, value, balancer, consistency, consistencyTimeout,
                timeoutAction, maxReplicationLag, minReservedNodes, transactionSplitting, connectionPool, allow,
                maxConnections, preferredZone);
    }

    public EndpointPolicy withBalancer(BalancerKind value) {
        return new EndpointPolicy(name, mode, nodes, weights, value, consistency, consistencyTimeout,
                timeoutAction, maxReplicationLag, minReservedNodes, transactionSplitting, connectionPool, allow,
                maxConnections, preferredZone);
    }

    public EndpointPolicy withConsistency(ConsistencyLevel value) {
        return new EndpointPolicy(name, mode, nodes, weights, balancer, value, consistencyTimeout,
                timeoutAction, maxReplicationLag, minReservedNodes, transactionSplitting, connectionPool, allow,
                maxConnections, preferredZone);
    }

    public EndpointPolicy withConsistencyTimeout(Duration value) {
        return new EndpointPolicy(name, mode, nodes, weights, balancer, consistency, value,
                timeoutAction, maxReplicationLag, minReservedNodes, transactionSplitting, connectionPool, allow,
                maxConnections, preferredZone);
    }

    public EndpointPolicy withTimeoutAction(TimeoutAction value) {
        return new EndpointPolicy(name, mode, nodes, weights, balancer, consistency, consistencyTimeout,
                value, maxReplicationLag, minReservedNodes, transactionSplitting, connectionPool, allow,
                maxConnections, preferredZone);
    }

    public EndpointPolicy withMaxReplicationLag(Duration value) {
        return new EndpointPolicy(name, mode, nodes, weights, balancer, consistency, consistencyTimeout,
                timeoutAction, value, minReservedNodes, transactionSplitting, connectionPool, allow,
                maxConnections, preferredZone);
    }

    public EndpointPolicy withMinReservedNodes(int value) {
        return new EndpointPolicy(name, mode, nodes, weights, balancer, consistency, consistencyTimeout,
                timeoutAction, maxReplicationLag, value, transactionSplitting, connectionPool, allow,
                maxConnections, preferredZone);
    }

    public EndpointPolicy withTransactionSplitting(boolean value) {
        return new EndpointPolicy(name, mode, nodes, weights, balancer, consistency, consistencyTimeout,
                timeoutAction, maxReplicationLag, minReservedNodes, value, connectionPool, allow,
                maxConnections, preferredZone);
    }

    public EndpointPolicy withConnectionPool(ConnectionPoolMode value) {
        return new EndpointPolicy(name, mode, nodes, weights, balancer, consistency, consistencyTimeout,
                timeoutAction, maxReplicationLag, minReservedNodes, transactionSplitting, value, allow,
                maxConnections, preferredZone);
    }

    public EndpointPolicy withAllow(List<String> value) {
        return new EndpointPolicy(name, mode, nodes, weights, balancer, consistency, consistencyTimeout,
                timeoutAction, maxReplicationLag, minReservedNodes, transactionSplitting, connectionPool, value,
                maxConnections, preferredZone);
    }

    public EndpointPolicy withMaxConnections(int value) {
        return new EndpointPolicy(name, mode, nodes, weights, balancer, consistency, consistencyTimeout,
                timeoutAction, maxReplicationLag, minReservedNodes, transactionSplitting, connectionPool, allow,
                value, preferredZone);
    }

    public EndpointPolicy withPreferredZone(Optional<String> value) {
        return new EndpointPolicy(name, mode, nodes, weights, balancer, consistency, consistencyTimeout,
                timeoutAction, maxReplicationLag, minReservedNodes, transactionSplitting, connectionPool, allow,
                maxConnections, value);
    }
}
