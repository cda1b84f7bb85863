package dev.sluice.server.config;

import java.util.List;

/**
 * What cluster mode shares through etcd (BEHAVIOUR §11): the instance's configuration with the
 * shared nodes and endpoints in it, and the nodes an operator asked sessions to leave (drain), which
 * is running state rather than configuration but must reach every instance all the same.
 *
 * @param config the instance's configuration, its nodes and endpoints the shared ones
 * @param draining the nodes being drained, each one of {@code config}'s nodes
 */
public record SharedConfig(SluiceConfig config, List<String> draining) {
    public SharedConfig {
        draining = List.copyOf(draining);
    }

    /** The same with other nodes and endpoints; a drain of a node no longer there is dropped. */
    public SharedConfig with(SluiceConfig newConfig) {
        return new SharedConfig(newConfig, draining.stream().filter(n -> newConfig.node(n).isPresent()).toList());
    }

    /** The same with {@code node} draining too. */
    public SharedConfig draining(String node) {
        if (draining.contains(node)) {
            return this;
        }
        List<String> more = new java.util.ArrayList<>(draining);
        more.add(node);
        return new SharedConfig(config, more);
    }

    /** The same with {@code node} no longer draining. */
    public SharedConfig undraining(String node) {
        return new SharedConfig(config, draining.stream().filter(n -> !n.equals(node)).toList());
    }
}
