package dev.sluice.server.switchover;

import dev.sluice.server.config.ReplicationAccount;
import dev.sluice.server.net.HostPort;

/**
 * The statements that point a node at a source and that promote one (MariaDB). A replica is
 * attached with {@code MASTER_USE_GTID=slave_pos}; a former primary first takes its own position
 * as its slave position, or it would ask its new source for transactions it wrote itself.
 */
final class ReplicationStatements {
    private ReplicationStatements() {
    }

    static final String STOP = "STOP SLAVE";
    static final String START = "START SLAVE";
    static final String FORGET_SOURCE = "RESET SLAVE ALL";
    static final String READ_ONLY = "SET GLOBAL read_only = 1";
    static final String WRITABLE = "SET GLOBAL read_only = 0";
    static final String OWN_POSITION_AS_SLAVE_POSITION = "SET GLOBAL gtid_slave_pos = @@gtid_current_pos";
    static final String STATUS = "SHOW SLAVE STATUS";

    static String changeMaster(HostPort source, ReplicationAccount account) {
        return "CHANGE MASTER TO MASTER_HOST = " + literal(source.host()) + ", MASTER_PORT = " + source.port()
                + ", MASTER_USER = " + literal(account.user()) + ", MASTER_PASSWORD = " + literal(account.password().value())
                + ", MASTER_USE_GTID = slave_pos";
    }

    /** Waits until the node has applied {@code position}; answers 0, or -1 at the timeout. */
    static String gtidWait(String position, long timeoutSeconds) {
        return "SELECT MASTER_GTID_WAIT(" + literal(position) + ", " + timeoutSeconds + ")";
    }

    /** A string literal whatever it holds (the server's escapes: backslash and quote). */
    static String literal(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
