package dev.sluice.server.switchover;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * When {@code failover: auto} fails over by itself (BEHAVIOUR §10): once the node Sluice treats as
 * primary has missed {@code failover-after} checks in a row, and never before it is down (at least
 * {@code down-after} misses). It fires once per outage: an answered check starts the count again,
 * and a failover that was refused or called off is not tried again by itself (the operator runs
 * {@code ./sluice failover} once what stopped it is fixed). Counts of replicas are ignored: only a
 * primary is failed over. In cluster mode only the leader fails over (BEHAVIOUR §11): an instance
 * that is not leader leaves it to the leader, and one that becomes leader while the outage lasts
 * fails over at its next miss (the leader may have gone with the primary). Pure; thread-safe (the
 * monitor reports from several event loops).
 */
public final class FailoverTrigger {
    private final boolean auto;
    private final int threshold;
    private final Map<String, Integer> inRow = new HashMap<>();
    /** Primaries whose outage has had its one automatic failover. */
    private final Set<String> fired = new HashSet<>();

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
        fired.remove(node);
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
     * now: {@link Decision#FAIL_OVER} once per outage of the primary, on the leader, from the
     * {@link #threshold()}th miss in a row; {@link Decision#LEFT_TO_LEADER} at that miss on any
     * other instance.
     */
    public synchronized Decision missed(String node, boolean primary, boolean leading) {
        if (!primary) {
            inRow.remove(node);
            fired.remove(node);
            return Decision.NONE;
        }
        int n = inRow.merge(node, 1, Integer::sum);
        if (!auto || n < threshold || fired.contains(node)) {
            return Decision.NONE;
        }
        if (leading) {
            fired.add(node);
            return Decision.FAIL_OVER;
        }
        return n == threshold ? Decision.LEFT_TO_LEADER : Decision.NONE;
    }
}
