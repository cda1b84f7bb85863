package dev.sluice.server.auth;

import dev.sluice.protocol.auth.CachingSha2Password;
import dev.sluice.protocol.auth.NativePassword;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * Checks a client's answer to Sluice's scramble, with no I/O: against the account's
 * SHA1(SHA1(password)) for {@code mysql_native_password} (recovering SHA1(password), the
 * credential for backends), or against a password from the configuration.
 */
public final class Authenticator {
    public static final String NATIVE = "mysql_native_password";
    public static final String CACHING_SHA2 = "caching_sha2_password";

    private final AccountStore accounts;

    public Authenticator(AccountStore accounts) {
        this.accounts = accounts;
    }

    public AccountStore accounts() {
        return accounts;
    }

    public AuthOutcome check(String user, String clientHost, String plugin, byte[] scramble, byte[] answer) {
        Optional<byte[]> configured = accounts.configuredPassword(user);
        if (configured.isPresent()) {
            return checkPlain(configured.get(), plugin, scramble, answer);
        }
        Optional<Account> account = accounts.find(user, clientHost);
        if (account.isEmpty()) {
            return new AuthOutcome.Denied(AuthOutcome.Reason.UNKNOWN_USER, "no account '" + user + "' for " + clientHost);
        }
        Optional<byte[]> stage2 = account.get().nativeStage2();
        if (stage2.isEmpty()) {
            return new AuthOutcome.Denied(AuthOutcome.Reason.UNSUPPORTED_PLUGIN, "account '" + user + "' uses plugin '"
                    + account.get().plugin() + "'; give its password in the configuration's users: list");
        }
        if (!NATIVE.equals(plugin)) {
            return new AuthOutcome.SwitchPlugin(NATIVE);
        }
        if (stage2.get().length == 0) {
            return answer.length == 0
                    ? new AuthOutcome.Accepted(new Credential.PlainPassword(new byte[0]))
                    : new AuthOutcome.Denied(AuthOutcome.Reason.WRONG_PASSWORD, "password given for an account without one");
        }
        return NativePassword.recoverStage1(scramble, answer, stage2.get())
                .<AuthOutcome>map(stage1 -> new AuthOutcome.Accepted(new Credential.NativeHash(stage1)))
                .orElseGet(() -> new AuthOutcome.Denied(AuthOutcome.Reason.WRONG_PASSWORD, "wrong password"));
    }

    private static AuthOutcome checkPlain(byte[] password, String plugin, byte[] scramble, byte[] answer) {
        byte[] expected;
        if (NATIVE.equals(plugin)) {
            expected = password.length == 0 ? new byte[0] : NativePassword.scramble(password, scramble);
        } else if (CACHING_SHA2.equals(plugin)) {
            expected = password.length == 0 ? new byte[0] : CachingSha2Password.scramble(password, scramble);
        } else {
            return new AuthOutcome.SwitchPlugin(NATIVE);
        }
        return MessageDigest.isEqual(expected, answer)
                ? new AuthOutcome.Accepted(new Credential.PlainPassword(password))
                : new AuthOutcome.Denied(AuthOutcome.Reason.WRONG_PASSWORD, "wrong password");
    }
}
