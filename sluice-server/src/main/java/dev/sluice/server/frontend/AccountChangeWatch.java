package dev.sluice.server.frontend;

import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.routing.sql.Statement;
import dev.sluice.routing.sql.StatementKind;
import dev.sluice.server.auth.AccountStatements;
import dev.sluice.server.auth.AccountStore;
import dev.sluice.server.backend.BackendConnection;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * Tells the account store when a statement that changes accounts has run through Sluice, once its
 * answer is complete (so the change is committed on the primary): the next login that Sluice's
 * accounts would accept is checked again against accounts read after it — a dropped account or an
 * old password is not let in through a pooled connection, which no backend login checks.
 */
final class AccountChangeWatch implements CommandListener {
    private final AccountStore accounts;

    private AccountChangeWatch(AccountStore accounts) {
        this.accounts = accounts;
    }

    /** The listener for a COM_QUERY: this watch for account statements, nothing for the rest. */
    static CommandListener of(Statement statement, ByteBuf frame, AccountStore accounts) {
        if (statement.kind() != StatementKind.DDL) {
            return CommandListener.NONE;
        }
        int textStart = frame.readerIndex() + Packets.HEADER_SIZE + 1;
        int length = Math.min(frame.writerIndex() - textStart, AccountStatements.PREFIX_CHARS);
        // The keywords are ASCII in every character set a client may write in.
        String start = frame.toString(textStart, Math.max(0, length), StandardCharsets.ISO_8859_1);
        return AccountStatements.changesAccounts(start) ? new AccountChangeWatch(accounts) : CommandListener.NONE;
    }

    @Override
    public void onComplete(BackendConnection backend, ResponseTracker tracker) {
        accounts.changed();
    }

    @Override
    public void onFailure(BackendConnection backend, Throwable cause) {
        // The statement may have run before the link failed.
        accounts.changed();
    }
}
