package dev.sluice.server.config;

import java.time.Duration;

/** How the monitor reaches the nodes, and how often. */
public record MonitorConfig(String user, String password, Duration interval, Duration connectTimeout,
        Duration queryTimeout) {
}
