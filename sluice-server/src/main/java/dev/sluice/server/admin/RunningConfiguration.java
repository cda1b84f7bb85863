package dev.sluice.server.admin;

import dev.sluice.routing.topology.NodeRole;
import dev.sluice.server.config.ConfigDelta;
import dev.sluice.server.config.ConfigException;
import dev.sluice.server.config.EndpointConfig;
import dev.sluice.server.config.NodeConfig;
import dev.sluice.server.config.SluiceConfig;
import dev.sluice.server.runtime.EndpointLifecycle;
import dev.sluice.server.runtime.ProxyRuntime;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the running proxy run a given configuration: the delta from the one it runs is applied at
 * once (BEHAVIOUR §8) — nodes join or leave the topology, endpoints start, stop or take new
 * settings (new sessions see new weights; existing sessions keep the node set and weights they
 * started with), and sessions on removed nodes move their later reads elsewhere.
 */
final class RunningConfiguration {
    private static final Logger LOG = LoggerFactory.getLogger(RunningConfiguration.class);

    private final ProxyRuntime runtime;
    private final EndpointLifecycle lifecycle;

    RunningConfiguration(ProxyRuntime runtime, EndpointLifecycle lifecycle) {
        this.runtime = runtime;
        this.lifecycle = lifecycle;
    }

    /**
     * Runs {@code target}. New endpoints are started first: when one cannot listen, nothing has
     * changed and {@link AdminException} (409) says why.
     */
    void apply(SluiceConfig target) {
        ConfigDelta delta;
        try {
            delta = ConfigDelta.between(runtime.config(), target);
        } catch (ConfigException e) {
            throw new AdminException(AdminException.BAD_REQUEST, e.getMessage());
        }
        for (NodeConfig n : delta.nodesAdded()) {
            runtime.topologyHolder().update(t -> t.withNode(n.name(), n.address().toString(),
                    n.role() == NodeConfig.Role.PRIMARY ? NodeRole.PRIMARY : NodeRole.REPLICA, n.zone(), n.capacity()));
            LOG.info("node '{}' added at {}", n.name(), n.address());
        }
        // An endpoint that moves to another address stops first (its name is taken until then); the
        // others stop only once every new endpoint listens, so a refused start leaves them running.
        List<String> moving = delta.endpointsAdded().stream().map(EndpointConfig::name)
                .filter(delta.endpointsRemoved()::contains).toList();
        moving.forEach(this::stop);
        startAdded(delta);
        delta.endpointsRemoved().stream().filter(n -> !moving.contains(n)).forEach(this::stop);
        for (String name : delta.nodesRemoved()) {
            runtime.topologyHolder().update(t -> t.withoutNode(name));
        }
        for (EndpointConfig e : delta.endpointsChanged()) {
            runtime.endpoint(e.name()).ifPresent(rt -> rt.reconfigure(e, runtime.topology()));
            LOG.info("endpoint '{}' reconfigured", e.name());
        }
        runtime.config(target);
        if (!delta.nodesRemoved().isEmpty()) {
            runtime.sessionsLeaveRetiredNodes();
            delta.nodesRemoved().forEach(name -> LOG.info("node '{}' removed: sessions move their later reads to "
                    + "other nodes", name));
        }
    }

    private void stop(String name) {
        lifecycle.stop(name);
        LOG.info("endpoint '{}' removed: it accepts no more connections; its sessions finish", name);
    }

    private void startAdded(ConfigDelta delta) {
        List<String> started = new ArrayList<>();
        for (EndpointConfig e : delta.endpointsAdded()) {
            try {
                lifecycle.start(e);
                started.add(e.name());
                LOG.info("endpoint '{}' added on {}", e.name(), e.listen());
            } catch (RuntimeException ex) {
                started.forEach(lifecycle::stop);
                for (NodeConfig n : delta.nodesAdded()) {
                    runtime.topologyHolder().update(t -> t.withoutNode(n.name()));
                }
                throw new AdminException(AdminException.CONFLICT, "endpoint '" + e.name() + "' cannot listen on "
                        + e.listen() + ": " + ex.getMessage());
            }
        }
    }
}
