package dev.sluice.server.monitor;

import java.time.Duration;
import java.util.Objects;

/**
 * How often the monitor checks each node and how long one check may take. The monitor's own value
 * type: the configuration's {@code monitor:} section is translated into it
 * ({@code MonitorConfig.schedule()}).
 *
 * @param interval       time between two checks of a node
 * @param connectTimeout a node that does not accept the monitor's connection within this is unreachable
 * @param queryTimeout   a node that does not answer a check's queries within this is unreachable
 */
public record ProbeSchedule(Duration interval, Duration connectTimeout, Duration queryTimeout) {
    public ProbeSchedule {
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(queryTimeout, "queryTimeout");
    }
}
