package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.Command;
import dev.sluice.server.backend.FakeBackend;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a session sends for CONNECTION_ID() and for KILL by Sluice's id: the call replaced by the
 * session's own id (the harness's session has id 1), a KILL among other statements replaced by
 * the statement that answers as it would have, a lone KILL answered by Sluice.
 */
class OneConnectionIdSessionTest {
    private static final String OWN_ID = "CAST(0000000001 AS UNSIGNED)";
    private final SessionHarness h = SessionHarness.readWrite();

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void aReadOnAReplicaCarriesTheSessionsOwnId() {
        h.query("SELECT CONNECTION_ID()");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT " + OWN_ID + " AS `CONNECTION_ID()`");
        ro1.rows(List.of("CONNECTION_ID()"), List.of(List.of("1")));
        assertThat(h.rows()).containsExactly(List.of("1"));
    }

    @Test
    void aPreparedStatementIsPreparedWithTheSessionsOwnId() {
        h.send(Command.COM_STMT_PREPARE, "SELECT connection_id() = ?".getBytes(StandardCharsets.UTF_8));
        // prepared where the statement would run: a replica, whichever the balancer chose
        String node = List.of("ro1", "ro2").stream().filter(n -> !h.nodes.of(n).isEmpty()).findFirst().orElseThrow();
        String prepare = h.backend(node).takeClientCommand();
        assertThat(prepare).startsWith("COM_STMT_PREPARE ");
        byte[] text = HexFormat.of().parseHex(prepare.substring("COM_STMT_PREPARE ".length()));
        assertThat(new String(text, StandardCharsets.UTF_8))
                .isEqualTo("SELECT " + OWN_ID + " = ? AS `connection_id() = ?`");
    }

    @Test
    void aKillAmongOtherStatementsBecomesTheErrorItWouldGiveAndTheTextGoesOn() {
        h.query("KILL 99; SELECT 1");
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo(
                "SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = 1094, MESSAGE_TEXT = 'Unknown thread id: 99'; SELECT 1");
    }

    @Test
    void aLoneKillIsAnsweredBySluice() {
        h.query("KILL 99");
        assertThat(h.error()).startsWith("1094").endsWith("Unknown thread id: 99");
        h.query("KILL QUERY ID 5");
        assertThat(h.error()).startsWith("1235");
        assertThat(h.nodes.of("primary")).as("no KILL reaches a server").isEmpty();
    }
}
