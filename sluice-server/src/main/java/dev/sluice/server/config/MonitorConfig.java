package dev.sluice.server.config;

import dev.sluice.server.monitor.ProbeSchedule;
import java.time.Duration;

/**
 * How the monitor reaches the nodes, and how often.
 *
 * @param switchoverTimeout how long a switchover holds writes for open transactions to end, and for
 *     the target to apply the old primary's last transaction, before it is called off (BEHAVIOUR §10)
 */
public record MonitorConfig(String user, String password, Duration interval, Duration connectTimeout,
        Duration queryTimeout, Duration switchoverTimeout) {
    public static final Duration DEFAULT_SWITCHOVER_TIMEOUT = Duration.ofSeconds(10);

    /** With the default switchover timeout. */
    public MonitorConfig(String user, String password, Duration interval, Duration connectTimeout,
            Duration queryTimeout) {
        this(user, password, interval, connectTimeout, queryTimeout, DEFAULT_SWITCHOVER_TIMEOUT);
    }

    /** The timing part, as the monitor takes it. */
    public ProbeSchedule schedule() {
        return new ProbeSchedule(interval, connectTimeout, queryTimeout);
    }
}
