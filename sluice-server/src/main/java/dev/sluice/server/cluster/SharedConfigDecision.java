package dev.sluice.server.cluster;

import dev.sluice.server.config.ConfigDelta;
import dev.sluice.server.config.ConfigException;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.ConfigWriter;
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

    /** Run {@code config} and drain {@code draining}, which etcd holds at {@code revision}. */
    public record Apply(SluiceConfig config, List<String> draining, long revision) implements Decision {
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
        return decide(new SharedConfig(running, List.of()), stored, settledRevision);
    }

    /** As above, for an instance that runs {@code running} with its nodes being drained. */
    public static Decision decide(SharedConfig running, Optional<StoredConfig> stored, long settledRevision) {
        if (stored.isEmpty()) {
            return new Seed(ConfigWriter.sharedYaml(running));
        }
        StoredConfig s = stored.get();
        if (s.modRevision() <= settledRevision) {
            return new UpToDate();
        }
        try {
            SharedConfig shared = ConfigLoader.shared(running.config(), s.yaml());
            ConfigDelta.between(running.config(), shared.config());
            return new Apply(shared.config(), shared.draining(), s.modRevision());
        } catch (ConfigException e) {
            return new Refuse(s.modRevision(), e.getMessage());
        }
    }
}
