package dev.sluice.server.auth;

/** The result of checking a client's login answer. */
public sealed interface AuthOutcome {

    /** Logged in; {@code credential} logs the same user in to backends. */
    record Accepted(Credential credential) implements AuthOutcome {
    }

    /** The client must answer again with this plugin (sent with Sluice's scramble). */
    record SwitchPlugin(String plugin) implements AuthOutcome {
    }

    /**
     * {@code caching_sha2_password} full authentication: send AuthMoreData 0x04 and check the
     * clear password the client answers with ({@link Authenticator#checkClearPassword}). Only over TLS.
     */
    record FullAuthentication() implements AuthOutcome {
    }

    /** Refused; the reason is for the log, the client gets the server's usual message. */
    record Denied(Reason reason, String detail) implements AuthOutcome {
    }

    enum Reason {
        UNKNOWN_USER, WRONG_PASSWORD, UNSUPPORTED_PLUGIN, TLS_REQUIRED;

        /**
         * Whether the refusal answers a guess (a password or a user name), which is what the limit on
         * failed logins counts; a missing TLS or plugin is not a guess.
         */
        public boolean isGuess() {
            return this == UNKNOWN_USER || this == WRONG_PASSWORD;
        }
    }
}
