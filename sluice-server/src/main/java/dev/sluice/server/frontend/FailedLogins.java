package dev.sluice.server.frontend;

import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.server.auth.LoginThrottle;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the login and COM_CHANGE_USER say about {@code limits.login-failures}: the refusal of a
 * blocked address, or of an account blocked from an address, and the log line when a failure
 * starts a block. The counting itself is {@link LoginThrottle}'s.
 */
final class FailedLogins {
    private static final Logger LOG = LoggerFactory.getLogger(FailedLogins.class);
    /** ErrorCodes.ER_HOST_IS_BLOCKED: what a server answers an address it blocked for failed logins. */
    /** A block shorter than a second is announced as one second, never as zero. */
    private static final long MIN_ANNOUNCED_SECONDS = 1;

    private FailedLogins() {
    }

    /** The refusal of a connection from a blocked address, sent in place of the greeting. */
    static Optional<String> addressRefusal(LoginThrottle throttle, String host) {
        return throttle.blockedFor(host).map(left -> "Host '" + host + "' is blocked because of many failed logins; "
                + "it may try again in " + seconds(left) + " s (limits.login-failures)");
    }

    /** The refusal of a login as {@code user} from {@code host}, when that account or the address is blocked. */
    static Optional<String> accountRefusal(LoginThrottle throttle, String host, String user) {
        return throttle.blockedFor(host, user).map(left -> "Host '" + host + "' is blocked for user '" + user
                + "' because of many failed logins; it may try again in " + seconds(left) + " s (limits.login-failures)");
    }

    /** Counts a wrong password or unknown user, and says so in the log when it starts a block. */
    static void count(LoginThrottle throttle, String host, String user) {
        switch (throttle.failed(host, user)) {
            case ACCOUNT_BLOCKED -> LOG.warn("user '{}' blocked from {} for {} after {} failed logins "
                    + "(limits.login-failures)", user, host, throttle.limit().block(), throttle.limit().max());
            case ADDRESS_BLOCKED -> LOG.warn("client address {} blocked for {} after {} failed logins of any user "
                    + "(limits.login-failures)", host, throttle.limit().block(), throttle.limit().addressMax());
            case COUNTED -> {
            }
        }
    }

    private static long seconds(Duration left) {
        return Math.max(MIN_ANNOUNCED_SECONDS, left.toSeconds());
    }
}
