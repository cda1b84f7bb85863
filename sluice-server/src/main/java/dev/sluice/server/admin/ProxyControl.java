package dev.sluice.server.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.server.digest.DigestStore;
import java.util.Optional;

/**
 * The operations of the admin API (the managed proxies' DescribeDBProxy, DescribeDBProxyEndpoint,
 * ModifyDBProxyEndpoint, plus adding and removing nodes and endpoints, and draining). The HTTP
 * layer and the CLI speak to the running proxy only through this.
 *
 * <p>Every change is validated first and either applied whole or not at all; a refused change
 * throws {@link AdminException} with the HTTP status and a message that names the problem.
 * Settings are exchanged in their configuration-file form (kebab-case keys, {@code 10ms}
 * durations), as {@code dev.sluice.server.config.EndpointSettings} writes them.
 */
public interface ProxyControl {

    /** DescribeDBProxy: endpoints, and nodes with their state and per-endpoint load. */
    ProxyDescription describe();

    /** DescribeDBProxyEndpoint: one endpoint's settings, if it exists. */
    Optional<ObjectNode> describeEndpoint(String name);

    /** ModifyDBProxyEndpoint: applies {@code changes} (a JSON object of settings) at once; returns the new settings. */
    ObjectNode modifyEndpoint(String name, JsonNode changes);

    /** Adds an endpoint from its full settings (as in the configuration file); it starts listening. */
    ObjectNode addEndpoint(JsonNode definition);

    /** Removes an endpoint: it stops accepting; its sessions finish. */
    void removeEndpoint(String name);

    /** Adds a node ({@code name}, {@code address}, {@code role}, optional {@code zone}, {@code capacity}). */
    NodeDescription addNode(JsonNode definition);

    /** Removes a node: sessions using it move their later reads elsewhere, without an error. */
    void removeNode(String name);

    /** Moves existing sessions off a node at their next transaction boundary; new sessions avoid it. */
    NodeDescription drainNode(String name);

    /** The query digests of the running proxy (BEHAVIOUR §12), to read and to clear. */
    DigestStore digests();

    /** Writes the running configuration back to its file (atomically), when it was started from one. */
    void persist();

    /**
     * A planned switchover (BEHAVIOUR §10) to {@code to}, or to the most advanced healthy replica:
     * completes with what it did, or fails with a
     * {@link dev.sluice.server.switchover.SwitchoverException} saying why it was refused or called off.
     */
    java.util.concurrent.CompletableFuture<dev.sluice.server.switchover.SwitchoverOutcome> switchover(
            Optional<String> to);

    /**
     * A failover (BEHAVIOUR §10) to {@code to}, or to the most advanced reachable replica, when the
     * primary is gone: completes with what it did, or fails with a
     * {@link dev.sluice.server.switchover.SwitchoverException} saying why it was refused or called off.
     */
    java.util.concurrent.CompletableFuture<dev.sluice.server.switchover.SwitchoverOutcome> failover(
            Optional<String> to);
}
