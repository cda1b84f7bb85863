package dev.sluice.server.cluster;

import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Tells a failed etcd call that etcd refused — authentication or permissions: a mistake in the
 * configuration or in etcd's users and roles — from one that did not get through, and says in
 * plain words what to check (BEHAVIOUR §11). jetcd reports a wrong password as a bare
 * {@code UNAUTHENTICATED} whose cause holds etcd's own words, so every status in the chain is read.
 */
final class EtcdRefusal {
    /** A cause chain is a few exceptions deep; one that loops must not hold the caller. */
    private static final int MAX_CAUSES = 16;

    private EtcdRefusal() {
    }

    /**
     * Why etcd refused the call that failed with {@code failure}; empty when it did not refuse it.
     *
     * @param user {@code cluster.user}, when given
     * @param prefix the instances' key prefix, which the user needs to read and write
     */
    static Optional<String> of(Throwable failure, Optional<String> user, String prefix) {
        List<Status> statuses = new ArrayList<>();
        Throwable t = failure;
        for (int depth = 0; t != null && depth < MAX_CAUSES; depth++, t = t.getCause()) {
            if (t instanceof StatusRuntimeException s) {
                statuses.add(s.getStatus());
            } else if (t instanceof StatusException s) {
                statuses.add(s.getStatus());
            }
        }
        return of(statuses, user, prefix);
    }

    /** The same, from the gRPC statuses of the failure's chain, outermost first. */
    static Optional<String> of(List<Status> statuses, Optional<String> user, String prefix) {
        StringBuilder said = new StringBuilder();
        boolean refusedCode = false;
        for (Status s : statuses) {
            refusedCode |= s.getCode() == Status.Code.UNAUTHENTICATED || s.getCode() == Status.Code.PERMISSION_DENIED;
            if (s.getDescription() != null) {
                said.append(said.length() == 0 ? "" : "; ").append(s.getDescription());
            }
        }
        String text = said.toString().toLowerCase(Locale.ROOT);
        String etcd = said.length() == 0 ? "" : " (etcd: " + said + ")";
        if (text.contains("authentication failed")) {
            return Optional.of("etcd refused the user '" + user.orElse("") + "' or its password" + etcd
                    + "; check cluster.user and cluster.password against etcd's users");
        }
        if (text.contains("authentication is not enabled")) {
            return Optional.of("etcd has no authentication enabled, but cluster.user is given" + etcd
                    + "; remove cluster.user and cluster.password, or enable authentication in etcd");
        }
        if (user.isEmpty() && (text.contains("user name is empty") || text.contains("permission denied"))) {
            return Optional.of("etcd has authentication enabled and refuses an instance without a user" + etcd
                    + "; give cluster.user and cluster.password");
        }
        if (text.contains("permission denied")) {
            return Optional.of("etcd denies the user '" + user.get() + "' the keys under " + prefix + "/" + etcd
                    + "; grant it a role with readwrite on that prefix (etcdctl role grant-permission ROLE "
                    + "--prefix=true readwrite " + prefix + "/)");
        }
        if (refusedCode) {
            return Optional.of("etcd refused this instance's credentials" + etcd
                    + "; check cluster.user, cluster.password and cluster.tls");
        }
        return Optional.empty();
    }
}
