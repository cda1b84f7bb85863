package dev.sluice.server.config;

import java.time.Duration;

/**
 * How the Sluice process behaves as a service (top-level keys): how long a SIGTERM lets open
 * sessions finish before it cuts them, how log lines are written, and whether it keeps query digests.
 *
 * @param shutdownTimeout {@code shutdown-timeout}: after SIGTERM, the longest Sluice waits for open
 *     sessions to reach a transaction boundary or end before it closes them anyway
 * @param logFormat {@code log-format}: lines for a person ({@code text}) or one JSON object per
 *     line for a log collector ({@code json})
 * @param queryDigests {@code query-digests}: whether statements are counted by digest (BEHAVIOUR §12);
 *     off, the latency histograms still count them, and {@code GET /v1/digests} says digests are off
 */
public record ProcessConfig(Duration shutdownTimeout, LogFormat logFormat, boolean queryDigests) {
    /** Long enough for ordinary transactions; short enough for a service manager's stop timeout. */
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);
    public static final ProcessConfig DEFAULT = new ProcessConfig(DEFAULT_SHUTDOWN_TIMEOUT, LogFormat.TEXT, true);

    /** How log lines are written. */
    public enum LogFormat {
        TEXT("text"),
        JSON("json");

        private final String configName;

        LogFormat(String configName) {
            this.configName = configName;
        }

        public String configName() {
            return configName;
        }

        public static LogFormat of(String configName) {
            for (LogFormat f : values()) {
                if (f.configName.equals(configName)) {
                    return f;
                }
            }
            throw new IllegalArgumentException("no log format '" + configName + "'");
        }
    }
}
