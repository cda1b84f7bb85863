package dev.sluice.server.frontend;

import dev.sluice.server.backend.InternalQuery;
import dev.sluice.server.backend.QueryResult;
import dev.sluice.server.runtime.NodeRef;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Whether the session's account may kill connections of other users: MySQL's and MariaDB's rule
 * is the CONNECTION ADMIN or SUPER privilege. Only the server knows the account's privileges, so
 * the primary is asked, as that very account (through the session's own connection), what the
 * account holds. Roles are not consulted: a privilege held only through a role does not count.
 */
final class KillPermission {
    /** The privileges of the current account itself (an administrator sees every account's rows). */
    static final String QUESTION = "SELECT COUNT(*) AS granted FROM information_schema.USER_PRIVILEGES "
            + "WHERE GRANTEE = CONCAT('''', LEFT(CURRENT_USER(), CHAR_LENGTH(CURRENT_USER()) "
            + "- CHAR_LENGTH(SUBSTRING_INDEX(CURRENT_USER(), '@', -1)) - 1), '''@''', "
            + "SUBSTRING_INDEX(CURRENT_USER(), '@', -1), '''') "
            + "AND PRIVILEGE_TYPE IN ('SUPER', 'CONNECTION ADMIN')";

    private final ClientSession session;

    KillPermission(ClientSession session) {
        this.session = session;
    }

    /** Completes on the session's event loop; false when the question could not be answered. */
    CompletableFuture<Boolean> mayKillOthers() {
        CompletableFuture<Boolean> out = new CompletableFuture<>();
        Optional<NodeRef> primary = session.proxy().primary().or(session::firstNode);
        if (primary.isEmpty()) {
            out.complete(false);
            return out;
        }
        session.withBackend(primary.get(), null, b -> InternalQuery.run(b, QUESTION).whenComplete(
                (answer, error) -> session.client().eventLoop().execute(() -> out.complete(granted(answer, error)))));
        return out;
    }

    static boolean granted(QueryResult answer, Throwable error) {
        if (error != null || answer == null || answer.isError()) {
            return false;
        }
        return answer.first("granted").map(n -> !n.equals("0")).orElse(false);
    }
}
