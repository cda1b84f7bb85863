package dev.sluice.server.cluster;

import dev.sluice.server.admin.AdminException;
import dev.sluice.server.admin.InstanceDescription;
import java.util.List;
import java.util.Optional;

/**
 * Whether a switchover or failover sent to this instance may run here (BEHAVIOUR §11): only on the
 * leader, so that two instances never move the primary at once. Another instance refuses it with
 * 409, naming the leader and where its admin API listens, so the operator's tool can send it there;
 * with no leader known (etcd unreachable, or the leadership between two holders) 503, to be retried.
 * Pure.
 */
final class LeaderOnly {
    private LeaderOnly() {
    }

    /**
     * The refusal of {@code what} ({@code switchover} or {@code failover}) on the instance
     * {@code self}; empty when it may run.
     */
    static Optional<AdminException> refusal(String what, String self, boolean leading, Optional<String> leader,
            List<InstanceDescription> instances, boolean etcdReachable) {
        if (leading) {
            return Optional.empty();
        }
        if (!etcdReachable) {
            return Optional.of(new AdminException(ChangeOutcome.UNAVAILABLE, "etcd is unreachable: no leader is "
                    + "known, and only the leader runs a " + what + "; nothing was done; retry when etcd is back"));
        }
        if (leader.isEmpty() || leader.get().equals(self)) {
            // Its own name without leading: its lease lapsed (or is being replaced) and the key is not yet gone.
            return Optional.of(new AdminException(ChangeOutcome.UNAVAILABLE, "no instance holds the leadership "
                    + "right now (it is taken again within seconds), and only the leader runs a " + what
                    + "; nothing was done; retry"));
        }
        String name = leader.get();
        Optional<String> admin = instances.stream().filter(i -> i.name().equals(name)).map(InstanceDescription::admin)
                .findFirst();
        return Optional.of(new AdminException(AdminException.CONFLICT, "this instance '" + self + "' is not the "
                + "cluster's leader; only the leader runs a " + what + ": send it to '" + name + "'"
                + admin.map(a -> " (admin API http://" + a + "/v1/" + what + ")").orElse(" (not registered yet)")
                + "; nothing was done"));
    }
}
