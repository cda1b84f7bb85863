package dev.sluice.server.runtime;

import dev.sluice.server.config.EndpointConfig;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/** A running endpoint: its current settings and its live counters. */
public final class EndpointRuntime {
    private volatile EndpointConfig config;
    private final AtomicInteger sessions = new AtomicInteger();
    private final LongAdder commands = new LongAdder();

    public EndpointRuntime(EndpointConfig config) {
        this.config = config;
    }

    public EndpointConfig config() {
        return config;
    }

    public void config(EndpointConfig newConfig) {
        this.config = newConfig;
    }

    public String name() {
        return config.name();
    }

    /** Counts a new session unless the endpoint is full; false means refuse it. */
    public boolean trySessionStarted() {
        int max = config.maxConnections();
        while (true) {
            int n = sessions.get();
            if (n >= max) {
                return false;
            }
            if (sessions.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    public void sessionEnded() {
        sessions.decrementAndGet();
    }

    public int activeSessions() {
        return sessions.get();
    }

    public void recordCommand() {
        commands.increment();
    }

    public long commands() {
        return commands.sum();
    }
}
