package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.backend.FakeBackend;
import dev.sluice.server.digest.DigestOrder;
import dev.sluice.server.digest.DigestSummary;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §12: a session counts each statement that a backend answered in its digest (count,
 * errors, rows, primary or replica) and in the statement latency histogram of its endpoint and
 * node; commands that are not statements, and statements Sluice answers itself, are not counted.
 */
class StatementCostsTest {
    private final SessionHarness h = SessionHarness.readWrite();

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void eachAnsweredStatementCountsInItsDigestAndInTheHistogram() {
        for (int id : new int[] {1, 22, 333}) {
            h.query("SELECT c FROM t WHERE id = " + id);
            FakeBackend replica = h.backend(id == 22 ? "ro2" : "ro1");
            replica.takeClientCommand();
            replica.rows(List.of("c"), List.of(List.of("x")));
            h.rows();
        }
        h.query("SELECT c FROM t WHERE id IN (1, 2, 3)");
        FakeBackend ro2 = h.backend("ro2");
        ro2.takeClientCommand();
        ro2.rows(List.of("c"), List.of(List.of("a"), List.of("b")));
        h.rows();
        h.query("UPDATE t SET c = 'y' WHERE id = 5");
        FakeBackend primary = h.backend("primary");
        primary.takeClientCommand();
        primary.ok();
        h.ok();
        h.query("SELECT nope FROM t WHERE id = 9");
        FakeBackend ro1 = h.backend("ro1");
        ro1.takeClientCommand();
        ro1.error(1054, "42S22", "Unknown column 'nope' in 'field list'");
        h.error();
        h.c.ping();
        primary.takeClientCommand();
        primary.ok();
        h.ok();

        Map<String, DigestSummary> digests = h.proxy.digests().top(Optional.empty(), DigestOrder.COUNT, 10).stream()
                .collect(Collectors.toMap(DigestSummary::digest, Function.identity()));
        assertThat(digests).containsOnlyKeys("SELECT c FROM t WHERE id = ?", "SELECT c FROM t WHERE id IN (...)",
                "UPDATE t SET c = ? WHERE id = ?", "SELECT nope FROM t WHERE id = ?");
        DigestSummary point = digests.get("SELECT c FROM t WHERE id = ?");
        assertThat(point.count()).isEqualTo(3);
        assertThat(point.onReplicas()).isEqualTo(3);
        assertThat(point.onPrimary()).isZero();
        assertThat(point.rowsSent()).isEqualTo(3);
        assertThat(point.errors()).isZero();
        assertThat(point.endpoint()).isEqualTo("rw");
        assertThat(point.account()).isEqualTo("app");
        assertThat(point.schema()).isEqualTo("test");
        assertThat(point.maxMicros()).isGreaterThanOrEqualTo(point.meanMicros());
        assertThat(digests.get("SELECT c FROM t WHERE id IN (...)").rowsSent()).isEqualTo(2);
        DigestSummary update = digests.get("UPDATE t SET c = ? WHERE id = ?");
        assertThat(update.onPrimary()).isEqualTo(1);
        assertThat(update.onReplicas()).isZero();
        assertThat(update.rowsSent()).isZero();
        DigestSummary failed = digests.get("SELECT nope FROM t WHERE id = ?");
        assertThat(failed.count()).isEqualTo(1);
        assertThat(failed.errors()).isEqualTo(1);

        String metrics = h.proxy.metrics().scrape();
        assertThat(metrics).contains("sluice_statement_duration_seconds_count{endpoint=\"rw\",node=\"ro1\"} 3")
                .contains("sluice_statement_duration_seconds_count{endpoint=\"rw\",node=\"ro2\"} 2")
                .contains("sluice_statement_duration_seconds_count{endpoint=\"rw\",node=\"primary\"} 1")
                .contains("sluice_statement_duration_seconds_bucket{endpoint=\"rw\",node=\"ro1\",le=\"+Inf\"} 3");
    }

    @Test
    void anExecuteCountsUnderItsPreparedTextsDigestAndThePrepareDoesNot() {
        h.c.prepare("SELECT a FROM t WHERE id = ?");
        FakeBackend ro2 = h.backend("ro2");
        ro2.takeClientCommand();
        ro2.prepareOk(77, 1, 1);
        long id = h.c.prepared();
        for (int i = 0; i < 2; i++) {
            h.c.execute(id);
            FakeBackend replica = h.backend(i == 0 ? "ro1" : "ro2");
            if (i == 0) {
                replica.takeClientCommand();
                replica.prepareOk(9, 1, 1);
            }
            replica.takeClientCommand();
            replica.rows(List.of("a"), List.of(List.of("1"), List.of("2")));
            h.rows();
        }
        List<DigestSummary> digests = h.proxy.digests().top(Optional.empty(), DigestOrder.TOTAL, 10);
        assertThat(digests).hasSize(1);
        assertThat(digests.get(0).digest()).isEqualTo("SELECT a FROM t WHERE id = ?");
        assertThat(digests.get(0).count()).isEqualTo(2);
        assertThat(digests.get(0).onReplicas()).isEqualTo(2);
        assertThat(digests.get(0).rowsSent()).isEqualTo(4);
    }

    @Test
    void withDigestsOffStatementsStillCountInTheHistogramAndNoDigestIsKept() {
        try (SessionHarness off = SessionHarness.readsOnReplicasInProxyWith("query-digests: false\n")) {
            off.query("SELECT c FROM t WHERE id = 1");
            FakeBackend ro1 = off.backend("ro1");
            ro1.takeClientCommand();
            ro1.rows(List.of("c"), List.of(List.of("x")));
            off.rows();
            off.c.prepare("SELECT a FROM t WHERE id = ?");
            ro1.takeClientCommand();
            ro1.prepareOk(77, 1, 1);
            off.c.execute(off.c.prepared());
            FakeBackend ro2 = off.backend("ro2");
            ro2.takeClientCommand();
            ro2.prepareOk(9, 1, 1);
            ro2.takeClientCommand();
            ro2.rows(List.of("a"), List.of(List.of("1")));
            off.rows();

            assertThat(off.proxy.digests().collecting()).isFalse();
            assertThat(off.proxy.digests().top(Optional.empty(), DigestOrder.TOTAL, 10)).isEmpty();
            assertThat(off.proxy.metrics().scrape())
                    .contains("sluice_statement_duration_seconds_count{endpoint=\"rw\",node=\"ro1\"} 1")
                    .contains("sluice_statement_duration_seconds_count{endpoint=\"rw\",node=\"ro2\"} 1");
        }
    }

    @Test
    void aStatementAnsweredBySluiceItselfIsNotCounted() {
        h.query("SELECT sluice_last_gtid()");
        h.rows();
        assertThat(h.proxy.digests().top(Optional.empty(), DigestOrder.TOTAL, 10)).isEmpty();
    }

    @Test
    void clearedDigestsStartOver() {
        h.query("SELECT 1");
        FakeBackend ro1 = h.backend("ro1");
        ro1.takeClientCommand();
        ro1.rows(List.of("1"), List.of(List.of("1")));
        h.rows();
        assertThat(h.proxy.digests().top(Optional.empty(), DigestOrder.TOTAL, 10)).hasSize(1);
        h.proxy.digests().clear();
        assertThat(h.proxy.digests().top(Optional.empty(), DigestOrder.TOTAL, 10)).isEmpty();
    }
}
