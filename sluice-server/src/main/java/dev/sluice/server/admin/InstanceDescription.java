package dev.sluice.server.admin;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * One Sluice instance of a cluster (BEHAVIOUR §11), as it registers itself in etcd under a lease and
 * as DescribeDBProxy lists it: an instance is listed while it renews its lease, so a stopped,
 * killed or cut-off instance leaves the list when its lease expires. It reports itself again at
 * every tick, so the list also says whether each one runs what the others run.
 *
 * @param name the instance's {@code cluster.name}
 * @param listen its endpoints' addresses, {@code endpoint=host:port}
 * @param admin its admin API's address, {@code host:port}
 * @param revision the etcd revision of the shared configuration it runs
 * @param primary the node it sends writes to
 * @param sessions its client sessions open
 * @param reports how many reports it has written since it started: the reader tells a silent
 *     instance by this count not moving, by its own clock (the instances' clocks may differ)
 * @param health as the instance that lists it judges it ({@code ok}, {@code behind: …},
 *     {@code disagrees: …}, {@code silent: …}); not written by the instance itself
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record InstanceDescription(String name, List<String> listen, String admin, Long revision, String primary,
        Integer sessions, Long reports, String health) {
    public InstanceDescription {
        listen = List.copyOf(listen);
    }

    /** Where it listens, before it reports anything else. */
    public InstanceDescription(String name, List<String> listen, String admin) {
        this(name, listen, admin, null, null, null, null, null);
    }

    /** The same with what it runs now. */
    public InstanceDescription reporting(long runsRevision, String writesTo, int openSessions, long reportCount) {
        return new InstanceDescription(name, listen, admin, runsRevision, writesTo, openSessions, reportCount, null);
    }

    /** The same as a reader judges it. */
    public InstanceDescription judged(String verdict) {
        return new InstanceDescription(name, listen, admin, revision, primary, sessions, reports, verdict);
    }
}
