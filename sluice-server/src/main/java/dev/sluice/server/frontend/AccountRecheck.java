package dev.sluice.server.frontend;

import dev.sluice.server.auth.AccountStore;
import dev.sluice.server.auth.AuthOutcome;

/**
 * When a login or COM_CHANGE_USER is checked a second time, against accounts read after the first
 * check (docs/SECURITY.md): a refusal for an unknown user or a failed password — the account may
 * have been created or changed a moment ago — and an acceptance by accounts that an account
 * statement run through Sluice has since made stale — it may have been dropped or given another
 * password. A refusal for a plugin Sluice cannot check would be the same after any read.
 */
final class AccountRecheck {
    private AccountRecheck() {
    }

    static boolean needed(AuthOutcome outcome, AccountStore accounts) {
        if (outcome instanceof AuthOutcome.Denied denied) {
            return denied.reason() != AuthOutcome.Reason.UNSUPPORTED_PLUGIN;
        }
        return outcome instanceof AuthOutcome.Accepted && accounts.stale();
    }
}
