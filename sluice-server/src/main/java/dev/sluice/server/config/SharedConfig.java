package dev.sluice.server.config;

import java.util.List;
import java.util.Optional;

/**
 * What cluster mode shares through etcd (BEHAVIOUR §11): the instance's configuration with the
 * shared nodes and endpoints in it, the nodes an operator asked sessions to leave (drain), and the
 * old primary a failover left out of traffic until it rejoins. The last two are running state
 * rather than configuration, but must reach every instance all the same: any leader may be the one
 * that sees the old primary back.
 *
 * @param config the instance's configuration, its nodes and endpoints the shared ones
 * @param draining the nodes being drained, each one of {@code config}'s nodes
 * @param formerPrimary the last failover's old primary, while it has not rejoined
 */
public record SharedConfig(SluiceConfig config, List<String> draining, Optional<FormerPrimary> formerPrimary) {
    /**
     * A failover's old primary, out of traffic until it is back and judged.
     *
     * @param node its name, one of the configuration's nodes
     * @param promotedAt the new primary's GTID position at the promotion: the old one rejoins only if
     *     everything it wrote is contained there
     */
    public record FormerPrimary(String node, String promotedAt) {
    }

    public SharedConfig {
        draining = List.copyOf(draining);
    }

    /** Without a failover's old primary held out. */
    public SharedConfig(SluiceConfig config, List<String> draining) {
        this(config, draining, Optional.empty());
    }

    /** The same with other nodes and endpoints; a drain or hold of a node no longer there is dropped. */
    public SharedConfig with(SluiceConfig newConfig) {
        return new SharedConfig(newConfig, draining.stream().filter(n -> newConfig.node(n).isPresent()).toList(),
                formerPrimary.filter(f -> newConfig.node(f.node()).isPresent()));
    }

    /** The same with {@code node} draining too. */
    public SharedConfig draining(String node) {
        if (draining.contains(node)) {
            return this;
        }
        List<String> more = new java.util.ArrayList<>(draining);
        more.add(node);
        return new SharedConfig(config, more, formerPrimary);
    }

    /** The same with {@code held} as the failover's old primary, or none. */
    public SharedConfig holding(Optional<FormerPrimary> held) {
        return new SharedConfig(config, draining, held);
    }

    /** Every node kept out of traffic: the drains and the held old primary. */
    public List<String> outOfTraffic() {
        if (formerPrimary.isEmpty() || draining.contains(formerPrimary.get().node())) {
            return draining;
        }
        List<String> out = new java.util.ArrayList<>(draining);
        out.add(formerPrimary.get().node());
        return List.copyOf(out);
    }
}
