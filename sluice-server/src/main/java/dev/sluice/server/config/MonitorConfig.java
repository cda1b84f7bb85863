package dev.sluice.server.config;

import dev.sluice.server.monitor.ProbeSchedule;
import java.time.Duration;

/** How the monitor reaches the nodes, and how often. */
public record MonitorConfig(String user, String password, Duration interval, Duration connectTimeout,
        Duration queryTimeout) {

    /** The timing part, as the monitor takes it. */
    public ProbeSchedule schedule() {
        return new ProbeSchedule(interval, connectTimeout, queryTimeout);
    }
}
