package dev.sluice.server.metrics;

import dev.sluice.server.admin.EndpointDescription;
import dev.sluice.server.admin.NodeDescription;
import dev.sluice.server.admin.ProxyDescription;
import dev.sluice.server.pool.NodePoolUse;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gauges fed from DescribeDBProxy. The description is read once per scrape and its figures are
 * copied into holders the registered gauges read, so that a scrape costs one description however
 * many series there are. The set of series follows the topology: endpoints and nodes that appear
 * get gauges, and those that were removed lose theirs (a removed node must not report a stale
 * session count forever).
 */
final class TopologyGauges {
    private static final Logger LOG = LoggerFactory.getLogger(TopologyGauges.class);
    private static final String SECONDS = "seconds";

    private final MeterRegistry registry;
    private final Supplier<ProxyDescription> description;
    private final Supplier<List<NodePoolUse>> pools;
    private final Map<Series, Level> levels = new HashMap<>();

    /** One gauge series: a metric and the endpoint and/or node it is about (null when not labelled so). */
    private record Series(String name, String description, String unit, String endpoint, String node) {
        Tags tags() {
            Tags t = Tags.empty();
            if (endpoint != null) {
                t = t.and("endpoint", endpoint);
            }
            if (node != null) {
                t = t.and("node", node);
            }
            return t;
        }
    }

    /** The value a gauge reports, set at each refresh. */
    private static final class Level {
        private volatile double value;
        private Gauge gauge;

        double value() {
            return value;
        }
    }

    TopologyGauges(MeterRegistry registry, Supplier<ProxyDescription> description,
            Supplier<List<NodePoolUse>> pools) {
        this.registry = registry;
        this.description = description;
        this.pools = pools;
    }

    /** Reads the description and brings every gauge (and the set of series) up to date. */
    synchronized void refresh() {
        ProxyDescription d;
        try {
            d = description.get();
        } catch (RuntimeException e) {
            // The rest of the exposition is still worth serving; the gauges keep their last values.
            LOG.warn("cannot describe the proxy for the metrics: {}", e.toString());
            return;
        }
        Map<Series, Double> now = observe(d);
        observePools(now);
        for (Map.Entry<Series, Double> e : now.entrySet()) {
            Level level = levels.computeIfAbsent(e.getKey(), this::register);
            level.value = e.getValue();
        }
        for (Iterator<Map.Entry<Series, Level>> it = levels.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Series, Level> e = it.next();
            if (!now.containsKey(e.getKey())) {
                registry.remove(e.getValue().gauge);
                it.remove();
            }
        }
    }

    private Level register(Series s) {
        Level level = new Level();
        level.gauge = Gauge.builder(s.name(), level, Level::value).description(s.description()).baseUnit(s.unit())
                .tags(s.tags()).strongReference(true).register(registry);
        return level;
    }

    /** Pool use per endpoint and node (endpoints with a pool only); a failed reading leaves the pool series out. */
    private void observePools(Map<Series, Double> out) {
        List<NodePoolUse> uses;
        try {
            uses = pools.get();
        } catch (RuntimeException e) {
            LOG.warn("cannot read the connection pools for the metrics: {}", e.toString());
            return;
        }
        for (NodePoolUse u : uses) {
            out.put(new Series("sluice.pool.connections.in.use", "Pooled connections to the node leased to sessions "
                    + "of the endpoint (or logging in for one)", null, u.endpoint(), u.node()),
                    (double) u.use().inUse());
            out.put(new Series("sluice.pool.connections.idle", "Pooled connections to the node ready for the "
                    + "endpoint's next session", null, u.endpoint(), u.node()), (double) u.use().idle());
            out.put(new Series("sluice.pool.waiting", "Sessions of the endpoint waiting for a pooled connection "
                    + "to the node", null, u.endpoint(), u.node()), (double) u.use().waiting());
        }
    }

    private static Map<Series, Double> observe(ProxyDescription d) {
        Map<Series, Double> out = new LinkedHashMap<>();
        for (EndpointDescription e : d.endpoints()) {
            out.put(new Series("sluice.endpoint.sessions", "Client sessions open on the endpoint", null,
                    e.name(), null), (double) e.activeSessions());
        }
        for (NodeDescription n : d.nodes()) {
            out.put(new Series("sluice.node.up", "1 when the monitor reaches the node, else 0", null, null,
                    n.name()), "up".equals(n.state()) ? 1.0 : 0.0);
            out.put(new Series("sluice.node.replication.lag", "Replication lag; NaN when unknown or broken",
                    SECONDS, null, n.name()), n.lagSeconds() == null ? Double.NaN : n.lagSeconds().doubleValue());
            out.put(new Series("sluice.node.draining", "1 while an operator drains the node, else 0", null, null,
                    n.name()), n.draining() ? 1.0 : 0.0);
            for (Map.Entry<String, NodeDescription.NodeLoad> e : n.endpoints().entrySet()) {
                NodeDescription.NodeLoad load = e.getValue();
                String ep = e.getKey();
                out.put(new Series("sluice.node.sessions", "Sessions of the endpoint connected to the node", null,
                        ep, n.name()), (double) load.activeSessions());
                out.put(new Series("sluice.node.requests", "Statements of the endpoint running on the node now",
                        null, ep, n.name()), (double) load.activeRequests());
                out.put(new Series("sluice.node.weight", "The node's read weight on the endpoint", null, ep,
                        n.name()), (double) load.weight());
                out.put(new Series("sluice.node.readable", "1 when the node takes new reads of the endpoint",
                        null, ep, n.name()), load.readable() ? 1.0 : 0.0);
            }
        }
        return out;
    }
}
