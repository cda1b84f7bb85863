package dev.sluice.server.config;

import dev.sluice.server.monitor.ProbeSchedule;
import java.time.Duration;

/**
 * How the monitor reaches the nodes, and how often.
 *
 * @param downAfter checks in a row a node must miss before it is marked down (BEHAVIOUR §4)
 * @param switchoverTimeout how long a switchover holds writes for open transactions to end, and for
 *     the target to apply the old primary's last transaction, before it is called off (BEHAVIOUR §10);
 *     a failover waits as long for its target to apply what it had received
 * @param autoFailover {@code failover: auto}: Sluice fails over by itself once the primary has missed
 *     {@code failoverAfter} checks in a row (BEHAVIOUR §10); {@code manual}, the default, never
 * @param failoverAfter checks in a row the primary must miss before an automatic failover (counted
 *     from the first miss, so at least {@code downAfter} take effect)
 */
public record MonitorConfig(String user, Secret password, Duration interval, Duration connectTimeout,
        Duration queryTimeout, int downAfter, Duration switchoverTimeout, boolean autoFailover, int failoverAfter) {
    public static final int DEFAULT_DOWN_AFTER = 2;
    public static final int DEFAULT_FAILOVER_AFTER = 3;
    /** More than this many missed checks would leave a dead node in use for minutes. */
    public static final int MAX_DOWN_AFTER = 100;
    public static final Duration DEFAULT_SWITCHOVER_TIMEOUT = Duration.ofSeconds(10);

    /** With the default switchover timeout. */
    public MonitorConfig(String user, Secret password, Duration interval, Duration connectTimeout,
            Duration queryTimeout, int downAfter) {
        this(user, password, interval, connectTimeout, queryTimeout, downAfter, DEFAULT_SWITCHOVER_TIMEOUT, false,
                DEFAULT_FAILOVER_AFTER);
    }

    /** The timing part, as the monitor takes it. */
    public ProbeSchedule schedule() {
        return new ProbeSchedule(interval, connectTimeout, queryTimeout, downAfter);
    }
}
