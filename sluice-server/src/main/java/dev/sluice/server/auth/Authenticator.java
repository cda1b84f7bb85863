package dev.sluice.server.auth;

import dev.sluice.protocol.auth.CachingSha2Password;
import dev.sluice.protocol.auth.NativePassword;
import java.security.MessageDigest;
import java.util.Optional;
import java.util.Set;

/**
 * Checks a client's answer to Sluice's scramble, with no I/O: against the account's
 * SHA1(SHA1(password)) for {@code mysql_native_password} (recovering SHA1(password), the
 * credential for backends), or against a password from the configuration. An account that
 * {@code REQUIRE}s SSL is refused, with the usual access-denied message, unless the client's link
 * is TLS.
 *
 * <p>Users of the configuration's {@code users:} list marked {@code full-auth} log in over TLS with
 * {@code caching_sha2_password}'s full authentication (the client sends its password in clear
 * inside TLS); everywhere else the scramble is checked (the fast path).
 */
public final class Authenticator {
    public static final String NATIVE = "mysql_native_password";
    public static final String CACHING_SHA2 = "caching_sha2_password";

    private final AccountStore accounts;
    private final Set<String> fullAuthUsers;

    public Authenticator(AccountStore accounts) {
        this(accounts, Set.of());
    }

    /** @param fullAuthUsers configured users whose TLS clients get full authentication */
    public Authenticator(AccountStore accounts, Set<String> fullAuthUsers) {
        this.accounts = accounts;
        this.fullAuthUsers = Set.copyOf(fullAuthUsers);
    }

    public AccountStore accounts() {
        return accounts;
    }

    /** A check on a link without TLS, where full authentication is never offered. */
    public AuthOutcome check(String user, String clientHost, String plugin, byte[] scramble, byte[] answer) {
        return check(user, clientHost, plugin, scramble, answer, false, false);
    }

    /**
     * @param secure the client's link is TLS
     * @param fullAuthPossible the caller can run {@code caching_sha2_password}'s full authentication
     */
    public AuthOutcome check(String user, String clientHost, String plugin, byte[] scramble, byte[] answer,
            boolean secure, boolean fullAuthPossible) {
        Optional<byte[]> configured = accounts.configuredPassword(user);
        if (configured.isPresent()) {
            if (secure && fullAuthPossible && fullAuthUsers.contains(user)) {
                return CACHING_SHA2.equals(plugin) ? new AuthOutcome.FullAuthentication()
                        : new AuthOutcome.SwitchPlugin(CACHING_SHA2);
            }
            return requireTls(user, clientHost, secure, checkPlain(configured.get(), plugin, scramble, answer));
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
        AuthOutcome outcome;
        if (stage2.get().length == 0) {
            outcome = answer.length == 0
                    ? new AuthOutcome.Accepted(new Credential.PlainPassword(new byte[0]))
                    : new AuthOutcome.Denied(AuthOutcome.Reason.WRONG_PASSWORD, "password given for an account without one");
        } else {
            outcome = NativePassword.recoverStage1(scramble, answer, stage2.get())
                    .<AuthOutcome>map(stage1 -> new AuthOutcome.Accepted(new Credential.NativeHash(stage1)))
                    .orElseGet(() -> new AuthOutcome.Denied(AuthOutcome.Reason.WRONG_PASSWORD, "wrong password"));
        }
        return requireTls(user, clientHost, secure, outcome);
    }

    /**
     * The answer to a full authentication: the password itself (its trailing NUL removed). Refused
     * on a link without TLS, whatever the password.
     */
    public AuthOutcome checkClearPassword(String user, String clientHost, byte[] password, boolean secure) {
        if (!secure) {
            return new AuthOutcome.Denied(AuthOutcome.Reason.TLS_REQUIRED, "clear password sent without TLS");
        }
        Optional<byte[]> configured = accounts.configuredPassword(user);
        if (configured.isEmpty()) {
            return new AuthOutcome.Denied(AuthOutcome.Reason.UNKNOWN_USER, "no configured password for '" + user + "'");
        }
        AuthOutcome outcome = MessageDigest.isEqual(configured.get(), password)
                ? new AuthOutcome.Accepted(new Credential.PlainPassword(password))
                : new AuthOutcome.Denied(AuthOutcome.Reason.WRONG_PASSWORD, "wrong password (full authentication)");
        return requireTls(user, clientHost, true, outcome);
    }

    private AuthOutcome requireTls(String user, String clientHost, boolean secure, AuthOutcome outcome) {
        if (secure || !(outcome instanceof AuthOutcome.Accepted)) {
            return outcome;
        }
        boolean required = accounts.find(user, clientHost).map(Account::requiresTls).orElse(false);
        return required ? new AuthOutcome.Denied(AuthOutcome.Reason.TLS_REQUIRED,
                "account '" + user + "' requires SSL and the client connected without TLS") : outcome;
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
