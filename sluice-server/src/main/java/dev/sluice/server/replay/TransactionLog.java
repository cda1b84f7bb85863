package dev.sluice.server.replay;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a session recorded of the transaction open on its primary, so that it can be run again on
 * another connection if this one is lost between two statements (BEHAVIOUR §10): each command
 * (a text statement or a prepared statement's execution) and the checksum of the answer the client
 * got, in order.
 *
 * <p>It learns where transactions start and end from the answers themselves: a statement answered
 * with the server's IN_TRANS flag belongs to the open transaction (the first such one after an
 * answer without it starts a new transaction: a BEGIN, or the first statement under
 * autocommit=0), and an answer without it closes the record. A transaction that holds something
 * that cannot be replayed, or more statement text than {@code maxSize}, stays open but is no
 * longer recorded; the reason is kept for the client's error.
 *
 * <p>Confined to the session's event loop.
 */
public final class TransactionLog {
    /** One recorded statement and its answer's checksum. */
    public record Entry(RecordedCommand command, long checksum) {
    }

    private final long maxSize;
    private final List<Entry> entries = new ArrayList<>();
    private long size;
    private boolean open;
    private String notReplayable;

    /** @param maxSize bytes a transaction may hold and still be replayed ({@code transaction-replay-max-size}) */
    public TransactionLog(long maxSize) {
        this.maxSize = maxSize;
    }

    /**
     * A statement sent to the primary was answered; {@code inTransactionAfter} is the answer's
     * IN_TRANS flag. An ERR says nothing of the flags: pass whether a transaction was open.
     */
    public void answered(RecordedCommand command, long checksum, boolean inTransactionAfter) {
        if (!startsOrContinues(inTransactionAfter)) {
            return;
        }
        if (notReplayable != null) {
            return;
        }
        if (size + command.size() > maxSize) {
            stop("its statements passed transaction-replay-max-size (" + maxSize + " bytes)");
            return;
        }
        entries.add(new Entry(command, checksum));
        size += command.size();
    }

    /** A command that cannot be replayed was answered; it matters only inside a transaction. */
    public void answeredUnreplayable(String reason, boolean inTransactionAfter) {
        if (startsOrContinues(inTransactionAfter)) {
            stop(reason);
        }
    }

    /** Whether a transaction is open, as far as the answers recorded tell. */
    public boolean open() {
        return open;
    }

    /** Why the open transaction cannot be replayed, if it cannot. */
    public Optional<String> notReplayable() {
        return Optional.ofNullable(notReplayable);
    }

    /** The open transaction's statements, in the order they ran. */
    public List<Entry> entries() {
        return List.copyOf(entries);
    }

    /** Bytes held now: statement text, and a prepared statement's packets and parameters. */
    public long size() {
        return size;
    }

    /** The transaction is over, or the session was reset: nothing recorded is kept. */
    public void clear() {
        entries.clear();
        size = 0;
        open = false;
        notReplayable = null;
    }

    private boolean startsOrContinues(boolean inTransactionAfter) {
        if (!inTransactionAfter) {
            clear();
            return false;
        }
        if (!open) {
            clear();
            open = true;
        }
        return true;
    }

    private void stop(String reason) {
        if (notReplayable == null) {
            notReplayable = reason;
        }
        // The text is of no use any more; the session's memory is not held by it.
        entries.clear();
        size = 0;
    }
}
