package dev.sluice.bench.consistency;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the runs add up to: were the promises kept, and — from the slowed phase — could the
 * checker have noticed if they were not? A checker that never fails proves nothing, so a slowed
 * phase in which {@code eventual} shows no stale read is reported as such.
 */
final class Verdict {
    /** Violations and errors quoted per run. */
    static final int EXAMPLES_SHOWN = 2;
    /** Exit status: a promise was broken (or could not be checked). */
    static final int BROKEN = 1;
    /** Exit status: the slowed phase ran but eventual showed no stale read: the checker proved nothing. */
    static final int BLIND = 3;

    private final List<PhaseResult> phases;

    Verdict(List<PhaseResult> phases) {
        this.phases = phases;
    }

    List<WorkloadResult> broken() {
        List<WorkloadResult> broken = new ArrayList<>();
        phases.forEach(p -> p.results().stream().filter(WorkloadResult::failed).forEach(broken::add));
        return broken;
    }

    /** Stale eventual reads in the slowed phase; empty when there was no slowed phase or no eventual run. */
    Optional<Long> staleEventualReads() {
        return phases.stream().filter(PhaseResult::slowed).findFirst().flatMap(p -> {
            List<WorkloadResult> eventual = p.results().stream().filter(r -> r.level() == Level.EVENTUAL
                    && r.mode() != CheckMode.TOKEN).toList();
            return eventual.isEmpty() ? Optional.empty()
                    : Optional.of(eventual.stream().mapToLong(WorkloadResult::violations).sum());
        });
    }

    int exitStatus() {
        if (!broken().isEmpty()) {
            return BROKEN;
        }
        return staleEventualReads().filter(n -> n == 0).isPresent() ? BLIND : 0;
    }

    /**
     * The primary's load under {@code global}: what it ran beyond the checker's writes, split into
     * the checked reads it answered and the rest — Sluice's own questions (the monitor and the
     * batched position questions). Not for the token check, whose control reads blur the split.
     */
    private static String primaryLoad(PhaseResult p, WorkloadResult r) {
        double own = r.primaryQueriesPerSecond() - r.primaryReadsPerSecond();
        return "Primary load of `global` (" + r.mode().description() + ", " + ResultColumns.fixed(r.checksPerSecond(), 0)
                + " reads/s): " + ResultColumns.fixed(r.primaryQueriesPerSecond(), 1)
                + " statements/s beyond the checker's writes" + p.addedPrimaryLoad(r).map(d -> " ("
                + ResultColumns.fixed(d, 1) + " more than `eventual`)").orElse("") + "; of those, "
                + ResultColumns.fixed(r.primaryReadsPerSecond(), 1) + "/s were checked reads answered by the primary"
                + " and about " + ResultColumns.fixed(Math.max(0, own), 1)
                + "/s Sluice's own questions (position questions and monitor).";
    }

    /** One sentence per finding, markdown-safe, for the console and the report alike. */
    List<String> findings() {
        List<String> lines = new ArrayList<>();
        List<WorkloadResult> broken = broken();
        if (broken.isEmpty()) {
            lines.add("Every promised check (marked *yes*) had 0 violations and 0 errors.");
        } else {
            for (WorkloadResult r : broken) {
                lines.add("BROKEN: " + r.mode().description() + " at `" + r.level().configName() + "`: "
                        + r.violations() + " violations, " + r.errors() + " errors, " + r.hungSessions()
                        + " hung sessions in " + r.checks() + " checked reads.");
            }
        }
        staleEventualReads().ifPresent(n -> lines.add(n > 0
                ? "The checker can fail: with replication slowed, `eventual` returned " + n
                        + " stale reads (see the second table), while the promised checks stayed at 0."
                : "WARNING: with replication slowed, `eventual` returned no stale read: this run cannot show"
                        + " that the checker would notice a broken promise."));
        for (PhaseResult p : phases) {
            if (p.slowed()) {
                continue;
            }
            p.find(CheckMode.SESSION, Level.SESSION).ifPresent(r -> lines.add("`session`, read-your-writes: "
                    + r.checks() + " write-then-read pairs, " + r.violations() + " violations, "
                    + ResultColumns.percent(r.replicaShare()) + " of the reads on replicas."));
            p.find(CheckMode.GLOBAL, Level.GLOBAL).ifPresent(r -> lines.add("`global`, cross-session: "
                    + r.checks() + " reads, " + r.violations() + " violations, "
                    + ResultColumns.percent(r.replicaShare()) + " on replicas."));
            long tokenReads = p.results().stream().filter(r -> r.mode() == CheckMode.TOKEN)
                    .mapToLong(WorkloadResult::checks).sum();
            long tokenViolations = p.results().stream().filter(r -> r.mode() == CheckMode.TOKEN)
                    .mapToLong(WorkloadResult::violations).sum();
            if (tokenReads > 0) {
                lines.add("Token: " + tokenReads + " reads with `CONSISTENT_WITH` on a second connection, "
                        + tokenViolations + " violations.");
            }
            for (CheckMode mode : List.of(CheckMode.SESSION, CheckMode.GLOBAL)) {
                p.find(mode, Level.GLOBAL).ifPresent(r -> lines.add(primaryLoad(p, r)));
            }
        }
        return lines;
    }
}
