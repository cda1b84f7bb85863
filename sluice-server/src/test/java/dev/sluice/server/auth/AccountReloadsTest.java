package dev.sluice.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The once-a-second rule for reading accounts again, with a hand-driven clock, timer and reads. */
class AccountReloadsTest {
    private static final Duration INTERVAL = Duration.ofSeconds(1);
    private static final long MS = 1_000_000L;

    private long now = 5_000 * MS;
    /** Each read started, not yet ended until the test completes it. */
    private final List<CompletableFuture<Void>> reads = new ArrayList<>();
    private final List<Scheduled> timer = new ArrayList<>();
    private final AccountReloads reloads = new AccountReloads(this::read, INTERVAL, () -> now,
            (task, delay) -> timer.add(new Scheduled(task, now + delay)));

    private record Scheduled(Runnable task, long dueNanos) {
    }

    private CompletableFuture<Void> read() {
        CompletableFuture<Void> r = new CompletableFuture<>();
        reads.add(r);
        return r;
    }

    /** Moves the clock and runs the timer's tasks that fell due. */
    private void advance(long ms) {
        now += ms * MS;
        List<Scheduled> due = timer.stream().filter(s -> s.dueNanos() <= now).toList();
        timer.removeAll(due);
        due.forEach(s -> s.task().run());
    }

    @Test
    void aFirstRequestReadsAtOnce() {
        CompletableFuture<Void> fresh = reloads.fresh();
        assertThat(reads).hasSize(1);
        assertThat(fresh).isNotDone();
        reads.get(0).complete(null);
        assertThat(fresh).isDone();
    }

    @Test
    void aRequestWithinTheIntervalWaitsForTheNextReadInsteadOfGettingTheOldAccounts() {
        reloads.initial();
        reads.get(0).complete(null);
        advance(300);
        CompletableFuture<Void> fresh = reloads.fresh();
        assertThat(fresh).as("the accounts read 300 ms ago may miss an account created since").isNotDone();
        assertThat(reads).hasSize(1);
        assertThat(timer).singleElement().extracting(Scheduled::dueNanos).isEqualTo(now + 700 * MS);
        advance(699);
        assertThat(reads).hasSize(1);
        advance(1);
        assertThat(reads).hasSize(2);
        assertThat(fresh).isNotDone();
        reads.get(1).complete(null);
        assertThat(fresh).isDone();
    }

    @Test
    void requestsWhileAReadWaitsShareIt() {
        reloads.initial();
        reads.get(0).complete(null);
        List<CompletableFuture<Void>> asked = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            advance(0);
            asked.add(reloads.fresh());
        }
        advance(INTERVAL.toMillis());
        assertThat(reads).as("one read for a thousand refused logins").hasSize(2);
        assertThat(timer).isEmpty();
        reads.get(1).complete(null);
        assertThat(asked).allMatch(CompletableFuture::isDone);
    }

    @Test
    void aRequestDuringARunningReadGetsTheNextReadNotTheRunningOne() {
        CompletableFuture<Void> first = reloads.fresh();
        advance(50);
        CompletableFuture<Void> second = reloads.fresh();
        reads.get(0).complete(null);
        assertThat(first).isDone();
        assertThat(second).as("the running read may have started before the account existed").isNotDone();
        assertThat(reads).hasSize(1);
        advance(949);
        assertThat(reads).hasSize(1);
        advance(1);
        assertThat(reads).hasSize(2);
        reads.get(1).complete(null);
        assertThat(second).isDone();
    }

    @Test
    void aReadLongerThanTheIntervalIsFollowedAtOnceByTheWaitingOne() {
        reloads.fresh();
        CompletableFuture<Void> second = reloads.fresh();
        advance(3_000);
        assertThat(reads).as("never two reads at once").hasSize(1);
        reads.get(0).complete(null);
        assertThat(reads).hasSize(2);
        assertThat(timer).isEmpty();
        reads.get(1).complete(null);
        assertThat(second).isDone();
    }

    @Test
    void afterTheIntervalARequestReadsAtOnce() {
        reloads.fresh();
        reads.get(0).complete(null);
        advance(INTERVAL.toMillis());
        reloads.fresh();
        assertThat(reads).hasSize(2);
        assertThat(timer).isEmpty();
    }

    @Test
    void aFailedReadStillEndsTheWaitAndTheNextRequestReadsAgain() {
        CompletableFuture<Void> fresh = reloads.fresh();
        reads.get(0).completeExceptionally(new IllegalStateException("primary unreachable"));
        assertThat(fresh).isCompleted();
        assertThat(reloads.isReading()).isFalse();
        advance(INTERVAL.toMillis());
        reloads.fresh();
        assertThat(reads).hasSize(2);
    }

    @Test
    void aReadThatThrowsIsAFailedRead() {
        AccountReloads throwing = new AccountReloads(() -> {
            throw new IllegalStateException("no primary is known");
        }, INTERVAL, () -> now, (task, delay) -> timer.add(new Scheduled(task, now + delay)));
        assertThat(throwing.fresh()).isCompleted();
        assertThat(throwing.isReading()).isFalse();
    }

    @Test
    void aSecondInitialCallJoinsTheRunningRead() {
        CompletableFuture<Void> initial = reloads.initial();
        assertThat(reloads.initial()).isSameAs(initial);
        assertThat(reads).hasSize(1);
    }
}
