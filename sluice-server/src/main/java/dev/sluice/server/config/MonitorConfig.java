package dev.sluice.server.config;

import dev.sluice.server.monitor.ProbeSchedule;
import java.time.Duration;

/**
 * How the monitor reaches the nodes, and how often.
 *
 * @param downAfter checks in a row a node must miss before it is marked down (BEHAVIOUR §4)
 */
public record MonitorConfig(String user, Secret password, Duration interval, Duration connectTimeout,
        Duration queryTimeout, int downAfter) {
    public static final int DEFAULT_DOWN_AFTER = 2;
    /** More than this many missed checks would leave a dead node in use for minutes. */
    public static final int MAX_DOWN_AFTER = 100;

    /** The timing part, as the monitor takes it. */
    public ProbeSchedule schedule() {
        return new ProbeSchedule(interval, connectTimeout, queryTimeout, downAfter);
    }
}
