package dev.sluice.server.cluster;

import dev.sluice.server.admin.InstanceDescription;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How an instance of the cluster judges the others it lists (BEHAVIOUR §11): registered is not
 * enough, the point of one configuration is that every instance runs it and sends writes to the
 * same primary. An instance is {@code silent} when its report count has not moved for
 * {@link #SILENT_AFTER} by the reader's clock (its lease may still run: a stuck thread renews
 * nothing, but etcd keeps the key until the lease ends), {@code behind} when it runs an older
 * revision than the newest the reader ran, {@code disagrees} when it writes to another primary.
 * Pure but for the memory of when each count last moved; used on the cluster thread only.
 */
final class InstanceHealth {
    /** Three ticks without a report. */
    static final Duration SILENT_AFTER = Duration.ofSeconds(3);

    private record Seen(long reports, long atNanos) {
    }

    private final Map<String, Seen> lastMoved = new HashMap<>();

    /** Each of {@code instances} with its verdict, at {@code nowNanos}. */
    List<InstanceDescription> judge(List<InstanceDescription> instances, long nowNanos, long newestRevision,
            Optional<String> primary) {
        Map<String, Seen> still = new HashMap<>();
        List<InstanceDescription> out = instances.stream().map(d -> {
            Seen before = lastMoved.get(d.name());
            long reports = d.reports() == null ? -1 : d.reports();
            Seen now = before != null && before.reports() == reports ? before : new Seen(reports, nowNanos);
            still.put(d.name(), now);
            return d.judged(verdict(d, Duration.ofNanos(nowNanos - now.atNanos()), newestRevision, primary));
        }).toList();
        lastMoved.clear();
        lastMoved.putAll(still);
        return out;
    }

    /** The verdict on {@code d}, whose report count has not moved for {@code quiet}. */
    static String verdict(InstanceDescription d, Duration quiet, long newestRevision, Optional<String> primary) {
        if (d.reports() == null) {
            return "unknown: it reports only where it listens (a Sluice older than this one)";
        }
        if (quiet.compareTo(SILENT_AFTER) >= 0) {
            return "silent: no report for " + quiet.toSeconds() + " s; its lease has not ended yet";
        }
        if (d.revision() != null && d.revision() < newestRevision) {
            return "behind: runs the configuration of etcd revision " + d.revision() + ", not " + newestRevision;
        }
        if (primary.isPresent() && d.primary() != null && !d.primary().equals(primary.get())) {
            return "disagrees: sends writes to '" + d.primary() + "', this instance to '" + primary.get() + "'";
        }
        return "ok";
    }
}
