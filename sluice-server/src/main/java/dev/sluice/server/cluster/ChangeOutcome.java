package dev.sluice.server.cluster;

import dev.sluice.server.admin.AdminException;

/**
 * How writing an admin change to etcd ended: committed at a revision, lost a compare-and-swap to a
 * change made meanwhile (through another instance, or etcd itself), or not made because etcd did
 * not answer. A lost change is refused, never merged: the caller reads again and retries.
 */
public sealed interface ChangeOutcome {
    /** The HTTP status of a change refused because etcd cannot be reached. */
    int UNAVAILABLE = 503;

    /** The change is in etcd at {@code revision}. */
    record Committed(long revision) implements ChangeOutcome {
    }

    /** The configuration changed after it was read at {@code readRevision}: nothing was written. */
    record Conflict(long readRevision) implements ChangeOutcome {
        public AdminException refusal() {
            return new AdminException(AdminException.CONFLICT, "the shared configuration changed meanwhile (another "
                    + "change was committed after revision " + readRevision + " this change was based on); "
                    + "nothing was changed: read the configuration again and retry");
        }
    }

    /** etcd did not answer: nothing was written. */
    record Unreachable(String why) implements ChangeOutcome {
        public AdminException refusal() {
            return new AdminException(UNAVAILABLE, "etcd is unreachable (" + why + "): the change was not made; "
                    + "Sluice goes on serving with the configuration it last applied; retry when etcd is back");
        }
    }

    /** The outcome of a compare-and-swap transaction that expected {@code readRevision}. */
    static ChangeOutcome ofTransaction(boolean succeeded, long headerRevision, long readRevision) {
        return succeeded ? new Committed(headerRevision) : new Conflict(readRevision);
    }
}
