package dev.sluice.server.pool;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What a loop's pool remembers between sessions: SET answers and accepted logins, both for a short while. */
class PoolMemoryTest {
    private static final PoolKey APP = new PoolKey("app", 0x1234L, 45, true);
    private static final String FRESH = "db=test\u0000opt=-1\u0000";
    private static final String SET = "SET NAMES utf8mb4";
    private static final byte[] OK = {0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00};

    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    @Test
    void aSetAnswerIsGivenForTheSameAccountStateAndTextOnly() {
        SetAnswers answers = new SetAnswers(now::get);
        answers.learn(APP, FRESH, SET, OK);
        assertThat(answers.answer(APP, FRESH, SET)).hasValueSatisfying(ok -> assertThat(ok).isEqualTo(OK));
        assertThat(answers.answer(APP, FRESH + SET, SET)).as("another state").isEmpty();
        assertThat(answers.answer(APP, FRESH, "SET NAMES latin1")).as("another SET").isEmpty();
        assertThat(answers.answer(new PoolKey("other", 0x1234L, 45, true), FRESH, SET)).as("another account").isEmpty();
        assertThat(answers.answer(new PoolKey("app", 0x1234L, 8, true), FRESH, SET)).as("another charset").isEmpty();
    }

    @Test
    void aSetAnswerIsForgottenAfterItsMaximumAge() {
        SetAnswers answers = new SetAnswers(now::get);
        answers.learn(APP, FRESH, SET, OK);
        now.addAndGet(SetAnswers.MAX_AGE.toNanos());
        assertThat(answers.answer(APP, FRESH, SET)).isPresent();
        now.incrementAndGet();
        assertThat(answers.answer(APP, FRESH, SET)).isEmpty();
        assertThat(answers.size()).isZero();
    }

    @Test
    void setAnswersAreBoundedLeastRecentlyUsedFirst() {
        SetAnswers answers = new SetAnswers(now::get);
        answers.learn(APP, FRESH, "SET a=0", OK);
        for (int i = 1; i <= SetAnswers.MAX_ENTRIES; i++) {
            answers.answer(APP, FRESH, "SET a=0"); // kept in use
            answers.learn(APP, FRESH, "SET a=" + i, OK);
        }
        assertThat(answers.size()).isEqualTo(SetAnswers.MAX_ENTRIES);
        assertThat(answers.answer(APP, FRESH, "SET a=0")).isPresent();
        assertThat(answers.answer(APP, FRESH, "SET a=1")).as("the least recently used").isEmpty();
    }

    @Test
    void aStoredAnswerCannotBeChangedThroughTheArrayItCameFrom() {
        SetAnswers answers = new SetAnswers(now::get);
        byte[] ok = OK.clone();
        answers.learn(APP, FRESH, SET, ok);
        ok[3] = 0x7F;
        assertThat(answers.answer(APP, FRESH, SET)).hasValueSatisfying(a -> assertThat(a[3]).isEqualTo((byte) 0x02));
    }

    @Test
    void aLoginIsVouchedForOnTheSameNodeAccountAndDatabaseForAWhile() {
        LoginEvidence logins = new LoginEvidence(now::get);
        logins.accepted(1, APP, Optional.of("test"));
        assertThat(logins.vouchesFor(1, APP, Optional.of("test"))).isTrue();
        assertThat(logins.vouchesFor(2, APP, Optional.of("test"))).as("another node").isFalse();
        assertThat(logins.vouchesFor(1, APP, Optional.of("other"))).as("another database").isFalse();
        assertThat(logins.vouchesFor(1, APP, Optional.empty())).as("no database").isFalse();
        assertThat(logins.vouchesFor(1, new PoolKey("root", 0x1234L, 45, true), Optional.of("test"))).isFalse();
        now.addAndGet(LoginEvidence.MAX_AGE.toNanos() + 1);
        assertThat(logins.vouchesFor(1, APP, Optional.of("test"))).as("too old").isFalse();
    }
}
