package dev.sluice.server.switchover;

import java.util.HashMap;
import java.util.Map;

/**
 * When {@code failover: auto} fails over by itself (BEHAVIOUR §10): once the node Sluice treats as
 * primary has missed {@code failover-after} checks in a row, and never before it is down (at least
 * {@code down-after} misses). It fires once per outage: an answered check starts the count again,
 * and a failover that was refused or called off is not tried again by itself (the operator runs
 * {@code ./sluice failover} once what stopped it is fixed). Counts of replicas are ignored: only a
 * primary is failed over. In cluster mode only the instance that leads at that miss fails over
 * (BEHAVIOUR §11); the others leave it to the leader. One that becomes leader later in the outage
 * does not fail over by itself: it cannot tell a leader gone with the primary from a leader cut off
 * from etcd whose failover is still running, and a second failover would move the primary twice.
 * Pure; thread-safe (the monitor reports from several event loops).
 */
public final class FailoverTrigger {
    private final boolean auto;
    private final int threshold;
    private final Map<String, Integer> inRow = new HashMap<>();

    /** What a missed check leads to. */
    public enum Decision {
        /** Nothing: not (yet) a failover. */
        NONE,
        /** Start the failover. */
        FAIL_OVER,
        /** The threshold is reached, but this instance is not the leader: the leader fails over. */
        LEFT_TO_LEADER
    }

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
     * Outside cluster mode, where this instance always decides.
     */
    public boolean missed(String node, boolean primary) {
        return missed(node, primary, true) == Decision.FAIL_OVER;
    }

    /**
     * A check of {@code node} was missed, {@code leading} saying whether this instance is the leader
     * now: at the primary's {@link #threshold()}th miss in a row, {@link Decision#FAIL_OVER} on the
     * leader and {@link Decision#LEFT_TO_LEADER} on any other instance.
     */
    public synchronized Decision missed(String node, boolean primary, boolean leading) {
        if (!primary) {
            inRow.remove(node);
            return Decision.NONE;
        }
        int n = inRow.merge(node, 1, Integer::sum);
        if (!auto || n != threshold) {
            return Decision.NONE;
        }
        return leading ? Decision.FAIL_OVER : Decision.LEFT_TO_LEADER;
    }
}
