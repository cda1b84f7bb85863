package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.backend.BackendException;
import dev.sluice.server.backend.QueryResult;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What stands for a resolved KILL in a text of several statements, the reading of the privilege
 * answer, and the cheap look for the function's name before a PREPARE is rewritten.
 */
class KillStandInTest {

    @Test
    void aKillThatSucceededAnswersOkAndARefusedOneSignalsTheServersError() {
        assertThat(KillCommands.standIn(new KillOutcome.Done())).isEqualTo("DO 0");
        assertThat(KillCommands.standIn(new KillOutcome.Refused(1095, "HY000", "You are not owner of thread 7")))
                .isEqualTo("SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = 1095, "
                        + "MESSAGE_TEXT = 'You are not owner of thread 7'");
        assertThat(KillCommands.standIn(new KillOutcome.Refused(1235, "42000", "it's")))
                .isEqualTo("SIGNAL SQLSTATE '42000' SET MYSQL_ERRNO = 1235, MESSAGE_TEXT = 'it''s'");
    }

    @Test
    void onlyAGrantedPrivilegeCounts() {
        assertThat(KillPermission.granted(answer("2"), null)).isTrue();
        assertThat(KillPermission.granted(answer("0"), null)).isFalse();
        assertThat(KillPermission.granted(null, new IllegalStateException("gone"))).isFalse();
        assertThat(KillPermission.granted(new QueryResult(List.of(), List.of(), 0,
                Optional.of(new BackendException.ServerError(1142, "42000", "denied"))), null)).isFalse();
    }

    private static QueryResult answer(String count) {
        return new QueryResult(List.of("granted"), List.of(List.of(count)), 0, Optional.empty());
    }

    @Test
    void theNameIsFoundInAnyCase() {
        assertThat(OwnConnectionId.indexOfName(text("SELECT Connection_Id()"), 0, 21)).isEqualTo(7);
        assertThat(OwnConnectionId.indexOfName(text("SELECT 1"), 0, 8)).isEqualTo(-1);
        assertThat(OwnConnectionId.indexOfName(text("SELECT connection_i"), 0, 19)).isEqualTo(-1);
    }

    private static ByteBuf text(String s) {
        return Unpooled.wrappedBuffer(s.getBytes(StandardCharsets.US_ASCII));
    }
}
