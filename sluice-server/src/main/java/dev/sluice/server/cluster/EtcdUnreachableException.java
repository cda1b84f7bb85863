package dev.sluice.server.cluster;

/** An etcd call that did not complete: etcd is down, cut off, or did not answer in time. */
final class EtcdUnreachableException extends Exception {
    EtcdUnreachableException(String message) {
        super(message);
    }
}
