package dev.sluice.server.config;

import java.time.Duration;

/**
 * How the Sluice process behaves as a service (top-level keys): how long a SIGTERM lets open
 * sessions finish before it cuts them, and how log lines are written.
 *
 * @param shutdownTimeout {@code shutdown-timeout}: after SIGTERM, the longest Sluice waits for open
 *     sessions to reach a transaction boundary or end before it closes them anyway
 * @param logFormat {@code log-format}: lines for a person ({@code text}) or one JSON object per
 *     line for a log collector ({@code json})
 */
public record ProcessConfig(Duration shutdownTimeout, LogFormat logFormat) {
    /** Long enough for ordinary transactions; short enough for a service manager's stop timeout. */
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);
    public static final ProcessConfig DEFAULT = new ProcessConfig(DEFAULT_SHUTDOWN_TIMEOUT, LogFormat.TEXT);

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
