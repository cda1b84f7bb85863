package dev.sluice.server.cluster;

import dev.sluice.server.config.ConfigDelta;
import dev.sluice.server.config.ConfigException;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.ConfigWriter;
import dev.sluice.server.config.NodeConfig;
import dev.sluice.server.config.SharedConfig;
import dev.sluice.server.config.SluiceConfig;
import java.util.List;
import java.util.Optional;

/**
 * What an instance does with what etcd holds under its prefix (BEHAVIOUR §11): seed it from its own
 * configuration when it is empty, run it when it is newer than what runs, or refuse it — and keep
 * the last good one — when it fails the checks the configuration file gets. No I/O: the caller reads
 * etcd and acts.
 */
public final class SharedConfigDecision {
    private SharedConfigDecision() {
    }

    /** The outcome. */
    public sealed interface Decision {
    }

    /** etcd holds nothing yet: write this (only if the key is still absent, so concurrent starts seed once). */
    public record Seed(String yaml) implements Decision {
    }

    /**
     * Run {@code config} and drain {@code draining}, which etcd holds at {@code revision}; first make
     * {@code follow} the primary, when the shared configuration moved the primary there.
     *
     * @param sharedPrimary the primary etcd names, to tell at the next revision whether it moved
     */
    public record Apply(SluiceConfig config, List<String> draining, long revision, Optional<String> sharedPrimary,
            Optional<String> follow, Optional<SharedConfig.FormerPrimary> formerPrimary) implements Decision {
        /** What etcd holds, with this instance's roles. */
        public SharedConfig shared() {
            return new SharedConfig(config, draining, formerPrimary);
        }
    }

    /** What etcd holds at {@code revision} is invalid: keep running the last good configuration. */
    public record Refuse(long revision, String reason) implements Decision {
    }

    /** Nothing newer than what runs. */
    public record UpToDate() implements Decision {
    }

    /**
     * @param running the configuration this instance runs (its local sections are kept)
     * @param stored what etcd holds, if anything
     * @param settledRevision the newest revision already run or refused
     */
    public static Decision decide(SluiceConfig running, Optional<StoredConfig> stored, long settledRevision) {
        return decide(new SharedConfig(running, List.of()), stored, settledRevision, Optional.empty());
    }

    /**
     * As above, for an instance that runs {@code running} with its nodes being drained.
     *
     * <p>The roles: the leader writes where the primary is after a switchover or failover, and an
     * instance follows the primary etcd names when it differs from {@code lastSharedPrimary}, the one
     * etcd named before (none at start: an instance starts with etcd's roles). When etcd names the
     * same primary as before, the instance keeps its running roles: its own monitor may have followed
     * a move the leader has not written yet, and an unrelated change (a weight, a drain) must not move
     * the primary back.
     */
    public static Decision decide(SharedConfig running, Optional<StoredConfig> stored, long settledRevision,
            Optional<String> lastSharedPrimary) {
        if (stored.isEmpty()) {
            return new Seed(ConfigWriter.sharedYaml(running));
        }
        StoredConfig s = stored.get();
        if (s.modRevision() <= settledRevision) {
            return new UpToDate();
        }
        try {
            SharedConfig shared = ConfigLoader.shared(running.config(), s.yaml());
            Optional<String> sharedPrimary = shared.config().primary().map(NodeConfig::name);
            Optional<String> runningPrimary = running.config().primary().map(NodeConfig::name);
            boolean moved = sharedPrimary.isPresent() && !sharedPrimary.equals(lastSharedPrimary);
            SluiceConfig target = moved || runningPrimary.isEmpty() ? shared.config()
                    : shared.config().withPrimary(runningPrimary.get());
            Optional<String> primary = target.primary().map(NodeConfig::name);
            ConfigDelta.between(primary.map(running.config()::withPrimary).orElse(running.config()), target);
            Optional<String> follow = moved && !sharedPrimary.equals(runningPrimary) ? sharedPrimary : Optional.empty();
            return new Apply(target, shared.draining(), s.modRevision(), sharedPrimary, follow, shared.formerPrimary());
        } catch (ConfigException e) {
            return new Refuse(s.modRevision(), e.getMessage());
        }
    }
}
