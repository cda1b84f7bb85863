package dev.sluice.server.history;

import dev.sluice.server.admin.ProxyDescription;
import dev.sluice.server.metrics.LatencyCounts;
import dev.sluice.server.pool.NodePoolUse;
import java.util.List;
import java.util.Map;

/**
 * What one sample reads of what Sluice already measures: DescribeDBProxy (sessions, statement
 * counters per node, replication lag from the monitor's topology), the pools' use, and the
 * latency and consistency-wait counters of the metrics, all since start. A step's values come
 * from two of these.
 *
 * @param epochSeconds wall-clock time of the sample, for the charts' time axis
 * @param nanos monotonic time of the sample, for rates
 * @param proxy DescribeDBProxy
 * @param pools pool use per endpoint and node
 * @param latencies statement latencies per endpoint
 * @param waits consistency waits per outcome
 */
public record Readings(long epochSeconds, long nanos, ProxyDescription proxy, List<NodePoolUse> pools,
        Map<String, LatencyCounts> latencies, Map<String, Long> waits) {

    public Readings {
        pools = List.copyOf(pools);
        latencies = Map.copyOf(latencies);
        waits = Map.copyOf(waits);
    }
}
