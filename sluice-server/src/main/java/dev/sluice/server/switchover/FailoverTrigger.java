package dev.sluice.server.switchover;

import java.util.HashMap;
import java.util.Map;

/**
 * When {@code failover: auto} fails over by itself (BEHAVIOUR §10): once the node Sluice treats as
 * primary has missed {@code failover-after} checks in a row, and never before it is down (at least
 * {@code down-after} misses). It fires once per outage: an answered check starts the count again,
 * and a failover that was refused or called off is not tried again by itself (the operator runs
 * {@code ./sluice failover} once what stopped it is fixed). Counts of replicas are ignored: only a
 * primary is failed over. Pure; thread-safe (the monitor reports from several event loops).
 */
public final class FailoverTrigger {
    private final boolean auto;
    private final int threshold;
    private final Map<String, Integer> inRow = new HashMap<>();

    public FailoverTrigger(boolean auto, int failoverAfter, int downAfter) {
        if (failoverAfter < 1 || downAfter < 1) {
            throw new IllegalArgumentException("failover-after and down-after must be at least 1");
        }
        this.auto = auto;
        this.threshold = Math.max(failoverAfter, downAfter);
    }

    /** Misses in a row that fire a failover. */
    public int threshold() {
        return threshold;
    }

    /** A check of {@code node} was answered. */
    public synchronized void answered(String node) {
        inRow.remove(node);
    }

    /**
     * A check of {@code node} was missed; true when this miss should start a failover: the node is
     * the primary, failover is automatic, and this is its {@link #threshold()}th miss in a row.
     */
    public synchronized boolean missed(String node, boolean primary) {
        if (!primary) {
            inRow.remove(node);
            return false;
        }
        int n = inRow.merge(node, 1, Integer::sum);
        return auto && n == threshold;
    }
}
