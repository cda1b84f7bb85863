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
 * traffic until it rejoins ({@code former-primary}, with the position it must be contained in, so
 * that whichever instance leads when it comes back can judge it). Instances that did not run the
 * move follow their own monitor too, but only etcd tells them which node a failover left behind,
 * and an instance that starts later starts from etcd's roles. No I/O: the cluster thread reads
 * etcd, asks this, and writes with a compare-and-swap.
 */
final class MovesToShare {
    private MovesToShare() {
    }

    /**
     * The shared configuration to write, if it must change.
     *
     * @param stored what etcd holds
     * @param leading whether this instance leads: only the leader writes where the primary is
     * @param primary where this instance's topology has the primary
     * @param here the last failover's old primary as this instance knows it (its own failover, or
     *     one it took from etcd), and whether it is still held out
     */
    static Optional<SharedConfig> next(SharedConfig stored, boolean leading, Optional<String> primary,
            Optional<LeftBehind> here) {
        SharedConfig out = stored;
        Optional<String> storedPrimary = stored.config().primary().map(NodeConfig::name);
        if (leading && primary.isPresent() && stored.config().node(primary.get()).isPresent()
                && !primary.equals(storedPrimary)) {
            out = new SharedConfig(out.config().withPrimary(primary.get()), out.draining(), out.formerPrimary());
        }
        if (here.isPresent()) {
            LeftBehind l = here.get();
            Optional<SharedConfig.FormerPrimary> held = Optional.of(new SharedConfig.FormerPrimary(l.node(),
                    l.promotedAt()));
            if (l.held() && !stored.formerPrimary().equals(held) && out.config().node(l.node()).isPresent()) {
                out = out.holding(held);
            } else if (!l.held() && stored.formerPrimary().map(SharedConfig.FormerPrimary::node)
                    .equals(Optional.of(l.node()))) {
                out = out.holding(Optional.empty());
            }
        }
        return out.equals(stored) ? Optional.empty() : Optional.of(out);
    }

    /**
     * The nodes this instance keeps out of traffic: the shared drains and held old primary, with its
     * own failover's old primary held out before etcd has it, and let back in as soon as it rejoined
     * here, before etcd has that too (a drain an operator asked for stays).
     */
    static List<String> outOfTraffic(SharedConfig shared, Optional<LeftBehind> here) {
        List<String> out = new ArrayList<>(shared.outOfTraffic());
        if (here.isPresent()) {
            String node = here.get().node();
            if (here.get().held() && !out.contains(node)) {
                out.add(node);
            } else if (!here.get().held() && !shared.draining().contains(node)) {
                out.remove(node);
            }
        }
        return List.copyOf(out);
    }
}
