package dev.sluice.server.switchover;

import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.topology.Node;
import dev.sluice.routing.topology.Topology;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Which replica a failover promotes (BEHAVIOUR §10). First, from the monitor's view, which nodes may
 * be asked at all ({@link #eligible}): the primary must be unreachable (a reachable one is switched
 * over, not failed over), and a candidate reachable and not draining — its replication is broken
 * by the failure itself, so that is not held against it. Then, from what each candidate says it
 * has received from the dead primary ({@code Gtid_IO_Pos}), the most advanced
 * ({@link #choose}): the one that lacks the fewest transactions any candidate received, then
 * configuration order. A node named by the operator is promoted only if no other candidate
 * received a transaction it lacks: the others are pointed at it and would have to throw such a
 * transaction away. Pure.
 */
public final class FailoverChoice {
    private FailoverChoice() {
    }

    /** What one reachable replica received from the dead primary, in configuration order. */
    public record Candidate(String name, GtidPosition received) {
    }

    public sealed interface Choice {
    }

    public record Chosen(Candidate target) implements Choice {
    }

    public record Refused(String reason) implements Choice {
    }

    /** The nodes to ask, or why a failover cannot be tried. */
    public sealed interface Eligibility {
    }

    public record Eligible(Node primary, List<Node> candidates, List<String> left) implements Eligibility {
    }

    public record NotEligible(String reason) implements Eligibility {
    }

    public static Eligibility eligible(Topology t, Optional<String> requested) {
        Optional<Node> primary = t.primary();
        if (primary.isEmpty()) {
            return new NotEligible("no primary is known: there is nothing to fail over from");
        }
        Node p = primary.get();
        if (p.state().reachable()) {
            return new NotEligible("the primary '" + p.name() + "' is reachable: a failover is for a primary that "
                    + "is gone; use switchover (./sluice switchover, POST /v1/switchover) to move a live one");
        }
        if (requested.isPresent()) {
            Optional<Node> named = t.node(requested.get());
            if (named.isEmpty()) {
                return new NotEligible("no node '" + requested.get() + "'; nodes: "
                        + t.nodes().stream().map(Node::name).collect(Collectors.joining(", ")));
            }
            if (named.get().isPrimary()) {
                return new NotEligible("'" + requested.get() + "' is the primary that failed");
            }
            Optional<String> unfit = unfit(named.get());
            if (unfit.isPresent()) {
                return new NotEligible("cannot fail over to '" + requested.get() + "': " + unfit.get());
            }
        }
        List<Node> candidates = new ArrayList<>();
        List<String> left = new ArrayList<>();
        for (Node n : t.nodes()) {
            if (n.isPrimary()) {
                continue;
            }
            Optional<String> unfit = unfit(n);
            if (unfit.isPresent()) {
                left.add(n.name() + ": " + unfit.get());
            } else {
                candidates.add(n);
            }
        }
        if (candidates.isEmpty()) {
            return new NotEligible("no replica can take over" + (left.isEmpty() ? " (there is none)"
                    : ": " + String.join("; ", left)));
        }
        return new Eligible(p, candidates, left);
    }

    static Optional<String> unfit(Node n) {
        if (!n.state().reachable()) {
            return Optional.of("it is unreachable");
        }
        if (n.draining()) {
            return Optional.of("it is being drained");
        }
        return Optional.empty();
    }

    /** {@code candidates} in configuration order, each with what it received. */
    public static Choice choose(List<Candidate> candidates, Optional<String> requested) {
        if (candidates.isEmpty()) {
            return new Refused("no replica could be asked what it received");
        }
        GtidPosition all = candidates.get(0).received();
        for (Candidate c : candidates) {
            all = all.merge(c.received());
        }
        GtidPosition everything = all;
        if (requested.isPresent()) {
            Optional<Candidate> named = candidates.stream().filter(c -> c.name().equals(requested.get())).findFirst();
            if (named.isEmpty()) {
                return new Refused("cannot fail over to '" + requested.get() + "': it could not be asked what it "
                        + "received");
            }
            for (Candidate c : candidates) {
                long lacks = named.get().received().missingCount(c.received());
                if (lacks > 0) {
                    return new Refused("cannot fail over to '" + requested.get() + "': '" + c.name() + "' received "
                            + lacks + " transaction(s) it lacks (" + c.received() + " against "
                            + named.get().received() + "), which would be lost; fail over to '" + c.name()
                            + "' or without --to");
                }
            }
            return new Chosen(named.get());
        }
        // min() keeps the first of equals: configuration order breaks ties.
        return new Chosen(candidates.stream().min(Comparator.comparingLong(c -> c.received().missingCount(everything)))
                .orElseThrow());
    }
}
