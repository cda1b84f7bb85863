package dev.sluice.server.switchover;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.config.ReplicationAccount;
import dev.sluice.server.config.Secret;
import dev.sluice.server.net.HostPort;
import org.junit.jupiter.api.Test;

class ReplicationStatementsTest {

    @Test
    void pointsAtTheSourceWithTheReplicationAccountAndGtids() {
        assertThat(ReplicationStatements.changeMaster(new HostPort("10.0.0.2", 3306),
                new ReplicationAccount("repl", Secret.literal("it's a \\secret"))))
                .isEqualTo("CHANGE MASTER TO MASTER_HOST = '10.0.0.2', MASTER_PORT = 3306, MASTER_USER = 'repl', "
                        + "MASTER_PASSWORD = 'it\\'s a \\\\secret', MASTER_USE_GTID = slave_pos");
    }

    @Test
    void waitsForAPositionWithTheServersOwnWait() {
        assertThat(ReplicationStatements.gtidWait("0-1-42,1-2-7", 3))
                .isEqualTo("SELECT MASTER_GTID_WAIT('0-1-42,1-2-7', 3)");
    }

    @Test
    void aStatementInAMessageNeverShowsThePassword() {
        String sql = ReplicationStatements.changeMaster(new HostPort("h", 1),
                new ReplicationAccount("repl", Secret.literal("s3'cr\\et")));
        assertThat(NodeAdmin.shown(sql)).isEqualTo("CHANGE MASTER TO MASTER_HOST = 'h', MASTER_PORT = 1, "
                + "MASTER_USER = 'repl', MASTER_PASSWORD = '…', MASTER_USE_GTID = slave_pos");
    }
}
