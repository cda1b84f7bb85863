package dev.sluice.server.cluster;

import dev.sluice.server.config.NodeConfig;
import dev.sluice.server.config.SharedConfig;
import dev.sluice.server.switchover.Failovers.LeftBehind;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a switchover or failover changed that every instance must follow, written into the shared
 * configuration (BEHAVIOUR §11): where the primary is, and the old primary a failover left out of
 * traffic until it rejoins. Instances that did not run the move follow their own monitor too, but
 * only etcd tells them which node a failover left behind, and an instance that starts later starts
 * from etcd's roles. No I/O: the cluster thread reads etcd, asks this, and writes with a
 * compare-and-swap.
 */
final class MovesToShare {
    private MovesToShare() {
    }

    /**
     * What to write, if anything.
     *
     * @param write the shared configuration to write, when it must change
     * @param drainedHere the node this instance's failover added to the shared drains, which it takes
     *     out again when that node rejoins (a drain an operator asked is never taken out here)
     */
    record Step(Optional<SharedConfig> write, Optional<String> drainedHere) {
    }

    /**
     * @param stored what etcd holds
     * @param leading whether this instance leads: only the leader writes where the primary is
     * @param primary where this instance's topology has the primary
     * @param former the last failover's old primary, if this instance ran one
     * @param drainedHere what an earlier step said this instance drained
     */
    static Step next(SharedConfig stored, boolean leading, Optional<String> primary, Optional<LeftBehind> former,
            Optional<String> drainedHere) {
        SharedConfig out = stored;
        Optional<String> mine = drainedHere;
        Optional<String> storedPrimary = stored.config().primary().map(NodeConfig::name);
        if (leading && primary.isPresent() && stored.config().node(primary.get()).isPresent()
                && !primary.equals(storedPrimary)) {
            out = new SharedConfig(out.config().withPrimary(primary.get()), out.draining());
        }
        if (former.isPresent()) {
            String node = former.get().node();
            boolean shared = out.draining().contains(node);
            if (former.get().held() && !shared && out.config().node(node).isPresent()) {
                out = out.draining(node);
                mine = Optional.of(node);
            } else if (!former.get().held() && mine.equals(Optional.of(node))) {
                out = shared ? out.undraining(node) : out;
                mine = Optional.empty();
            }
        }
        return new Step(out.equals(stored) ? Optional.empty() : Optional.of(out), mine);
    }

    /**
     * The nodes this instance drains: the shared drains, with its own failover's old primary held
     * out before etcd has it and let back in as soon as it rejoined, before etcd has that too.
     */
    static List<String> draining(List<String> shared, Optional<LeftBehind> former, Optional<String> drainedHere) {
        List<String> out = new ArrayList<>(shared);
        if (former.isPresent()) {
            String node = former.get().node();
            if (former.get().held() && !out.contains(node)) {
                out.add(node);
            } else if (!former.get().held() && drainedHere.equals(Optional.of(node))) {
                out.remove(node);
            }
        }
        return List.copyOf(out);
    }
}
