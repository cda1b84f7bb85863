package dev.sluice.server.cluster;

/**
 * etcd answered and refused this instance: its certificate is not signed by {@code cluster.tls.ca},
 * it wants a client certificate, or the user, password or the user's permissions do not fit
 * (BEHAVIOUR §11). That is a mistake in the configuration, not an outage: at start it stops the
 * start; later, while it lasts, it counts as etcd unreachable and the log says why.
 */
final class EtcdRefusedException extends EtcdUnreachableException {
    EtcdRefusedException(String message) {
        super(message);
    }
}
