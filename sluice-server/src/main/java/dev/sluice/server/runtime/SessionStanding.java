package dev.sluice.server.runtime;

import java.util.List;

/**
 * Where one client session stands toward the primary, as a switchover asks before it moves it
 * (BEHAVIOUR §10).
 *
 * @param connectionId the id Sluice gave the client (what KILL takes)
 * @param transactionOpen a transaction is open on the primary
 * @param busyOnPrimary a command of the session is running on the primary, or a connection to it
 *     is being opened for one
 * @param unmovable what the session holds on the primary that no replay can carry to another
 *     node (temporary tables, LOCK TABLES, a named lock …), described for a person; empty when none
 */
public record SessionStanding(long connectionId, boolean transactionOpen, boolean busyOnPrimary,
        List<String> unmovable) {

    public SessionStanding {
        unmovable = List.copyOf(unmovable);
    }

    /** A session that ended meanwhile, or that never uses the primary: it holds nothing there. */
    public static SessionStanding gone(long connectionId) {
        return new SessionStanding(connectionId, false, false, List.of());
    }

    /** Nothing keeps the primary from moving under this session. */
    public boolean free() {
        return !transactionOpen && !busyOnPrimary && unmovable.isEmpty();
    }
}
