package dev.sluice.server.frontend;

import dev.sluice.server.backend.InternalQuery;
import dev.sluice.server.backend.QueryResult;
import dev.sluice.server.runtime.NodeRef;
import io.netty.channel.EventLoop;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

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

    private final CurrentCommand command;
    private final Supplier<Optional<NodeRef>> primary;
    private final EventLoop loop;

    /** @param primary the node to ask: the primary, or the session's first node when none is known */
    KillPermission(CurrentCommand command, Supplier<Optional<NodeRef>> primary, EventLoop loop) {
        this.command = command;
        this.primary = primary;
        this.loop = loop;
    }

    /** Completes on the session's event loop; false when the question could not be answered. */
    CompletableFuture<Boolean> mayKillOthers() {
        CompletableFuture<Boolean> out = new CompletableFuture<>();
        Optional<NodeRef> node = primary.get();
        if (node.isEmpty()) {
            out.complete(false);
            return out;
        }
        command.withBackend(node.get(), null, b -> InternalQuery.run(b, QUESTION).whenComplete(
                (answer, error) -> loop.execute(() -> out.complete(granted(answer, error)))));
        return out;
    }

    static boolean granted(QueryResult answer, Throwable error) {
        if (error != null || answer == null || answer.isError()) {
            return false;
        }
        return answer.first("granted").map(n -> !n.equals("0")).orElse(false);
    }
}
