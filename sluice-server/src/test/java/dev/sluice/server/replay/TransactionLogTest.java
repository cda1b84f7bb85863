package dev.sluice.server.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where a recorded transaction starts and ends, and what stops it being replayable. */
class TransactionLogTest {
    private static final boolean IN_TRANS = true;
    private static final boolean NO_TRANS = false;

    @Test
    void statementsOutsideATransactionAreNotKept() {
        TransactionLog log = new TransactionLog(1024);
        log.answered(query("SELECT 1"), 1, NO_TRANS);
        assertThat(log.open()).isFalse();
        assertThat(log.entries()).isEmpty();
    }

    @Test
    void aTransactionIsKeptInOrderFromItsFirstStatementToItsEnd() {
        TransactionLog log = new TransactionLog(1024);
        log.answered(query("SELECT 1"), 1, NO_TRANS);
        log.answered(query("BEGIN"), 2, IN_TRANS);
        log.answered(query("INSERT INTO t VALUES (1)"), 3, IN_TRANS);
        assertThat(log.entries()).extracting(TransactionLog.Entry::checksum).containsExactly(2L, 3L);
        assertThat(log.size()).isEqualTo(query("BEGIN").size() + query("INSERT INTO t VALUES (1)").size());

        log.answered(query("COMMIT"), 4, NO_TRANS);
        assertThat(log.open()).isFalse();
        assertThat(log.entries()).isEmpty();
        assertThat(log.size()).isZero();
    }

    @Test
    void aStatementThatFailedInsideTheTransactionIsKept() {
        TransactionLog log = new TransactionLog(1024);
        log.answered(query("BEGIN"), 1, IN_TRANS);
        // An ERR carries no status flags: the caller passes whether a transaction was open.
        log.answered(query("INSERT INTO t VALUES (1)"), 9, log.open());
        assertThat(log.entries()).hasSize(2);
    }

    @Test
    void aTransactionPastTheMaximumSizeIsNotReplayableAndHoldsNothing() {
        TransactionLog log = new TransactionLog(20);
        log.answered(query("BEGIN"), 1, IN_TRANS);
        log.answered(query("INSERT INTO t VALUES (1)"), 2, IN_TRANS);
        assertThat(log.notReplayable()).get().asString().contains("transaction-replay-max-size (20 bytes)");
        assertThat(log.entries()).isEmpty();
        assertThat(log.size()).isZero();
        log.answered(query("SELECT 1"), 3, IN_TRANS);
        assertThat(log.entries()).as("nothing more is recorded").isEmpty();
        assertThat(log.open()).isTrue();
    }

    @Test
    void exactlyTheMaximumSizeIsKept() {
        RecordedCommand begin = query("BEGIN");
        TransactionLog log = new TransactionLog(begin.size());
        log.answered(begin, 1, IN_TRANS);
        assertThat(log.notReplayable()).isEmpty();
        assertThat(log.entries()).hasSize(1);
    }

    @Test
    void whatCannotBeReplayedCountsOnlyInsideATransaction() {
        TransactionLog log = new TransactionLog(1024);
        log.answeredUnreplayable("a COM_STMT_FETCH ran in it", NO_TRANS);
        assertThat(log.notReplayable()).isEmpty();

        log.answered(query("BEGIN"), 1, IN_TRANS);
        log.answeredUnreplayable("a COM_STMT_FETCH ran in it", IN_TRANS);
        assertThat(log.notReplayable()).contains("a COM_STMT_FETCH ran in it");
        assertThat(log.entries()).isEmpty();
    }

    @Test
    void theNextTransactionStartsAfresh() {
        TransactionLog log = new TransactionLog(20);
        log.answered(query("BEGIN"), 1, IN_TRANS);
        log.answered(query("INSERT INTO t VALUES (1)"), 2, IN_TRANS);
        log.answered(query("ROLLBACK"), 3, NO_TRANS);

        log.answered(query("BEGIN"), 4, IN_TRANS);
        assertThat(log.notReplayable()).isEmpty();
        assertThat(log.entries()).extracting(TransactionLog.Entry::checksum).containsExactly(4L);
    }

    @Test
    void underAutocommitOffTheFirstStatementStartsTheTransaction() {
        TransactionLog log = new TransactionLog(1024);
        log.answered(query("SET autocommit=0"), 1, NO_TRANS);
        log.answered(query("UPDATE t SET v = 1"), 2, IN_TRANS);
        assertThat(log.open()).isTrue();
        assertThat(log.entries()).extracting(TransactionLog.Entry::checksum).containsExactly(2L);
    }

    @Test
    void anExecutionCountsItsPrepareItsParametersAndItsLongData() {
        byte[] prepare = frame(0x16, "INSERT INTO t VALUES (?, ?)");
        byte[] execute = new byte[20];
        byte[] chunk = new byte[100];
        RecordedCommand.Execution run = new RecordedCommand.Execution(1, prepare, execute, List.of(chunk, chunk));
        assertThat(run.size()).isEqualTo(prepare.length + 20 + 200);
        assertThat(run.text()).isEqualTo("INSERT INTO t VALUES (?, ?)");

        TransactionLog log = new TransactionLog(run.size() + 5);
        log.answered(query("BEGIN"), 1, IN_TRANS);
        log.answered(run, 2, IN_TRANS);
        assertThat(log.notReplayable()).contains("its statements passed transaction-replay-max-size ("
                + (run.size() + 5) + " bytes)");
        assertThat(log.entries()).isEmpty();
    }

    private static RecordedCommand query(String sql) {
        byte[] text = sql.getBytes(StandardCharsets.UTF_8);
        byte[] payload = new byte[text.length + 1];
        payload[0] = 0x03;
        System.arraycopy(text, 0, payload, 1, text.length);
        return new RecordedCommand.Text(payload);
    }

    /** A packet, header included, as the client sent it. */
    private static byte[] frame(int command, String sql) {
        byte[] text = sql.getBytes(StandardCharsets.UTF_8);
        byte[] frame = new byte[text.length + 5];
        frame[0] = (byte) (text.length + 1);
        frame[4] = (byte) command;
        System.arraycopy(text, 0, frame, 5, text.length);
        return frame;
    }
}
