package dev.sluice.server.monitor;

import java.time.Duration;
import java.util.Objects;

/**
 * How often the monitor checks each node, how long one check may take, and how many checks in a
 * row a node must miss before it is down. The monitor's own value type: the configuration's
 * {@code monitor:} section is translated into it ({@code MonitorConfig.schedule()}).
 *
 * @param interval       time between two checks of a node
 * @param connectTimeout a check that cannot connect and log in within this (plus its query timeout) is missed
 * @param queryTimeout   a check whose queries are not answered within this is missed
 * @param downAfter      missed checks in a row that mark a node down (at least 1)
 */
public record ProbeSchedule(Duration interval, Duration connectTimeout, Duration queryTimeout, int downAfter) {
    public ProbeSchedule {
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(queryTimeout, "queryTimeout");
        if (downAfter < 1) {
            throw new IllegalArgumentException("downAfter must be at least 1, not " + downAfter);
        }
    }
}
