package dev.sluice.server.cluster;

/**
 * An etcd call that did not complete: etcd is down, cut off, did not answer in time, or refused
 * this instance ({@link EtcdRefusedException}).
 */
sealed class EtcdUnreachableException extends Exception permits EtcdRefusedException {
    EtcdUnreachableException(String message) {
        super(message);
    }
}
