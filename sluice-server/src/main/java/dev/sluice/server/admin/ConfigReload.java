package dev.sluice.server.admin;

import dev.sluice.server.config.ConfigChanges;
import dev.sluice.server.config.ConfigException;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.SluiceConfig;
import dev.sluice.server.runtime.ProxyRuntime;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configuration file read again and applied to the running proxy (BEHAVIOUR §13: SIGHUP).
 * Nothing of it is new machinery: the file is loaded and validated as at start, what of it can
 * change while running is worked out as a target configuration ({@link ConfigChanges}), and that
 * target is run the way the admin API runs its changes ({@link LiveProxyControl#apply}), so a weight
 * changed in the file behaves exactly as one changed by ModifyDBProxyEndpoint. A file that does not
 * load, that asks for what the API would refuse, or whose target cannot run (a port already taken)
 * changes nothing. It runs under the control's lock, so no admin call interleaves.
 */
public final class ConfigReload {
    private static final Logger LOG = LoggerFactory.getLogger(ConfigReload.class);

    private final LiveProxyControl control;
    private final ProxyRuntime runtime;
    private final Optional<Path> file;

    public ConfigReload(LiveProxyControl control, ProxyRuntime runtime, Optional<Path> file) {
        this.control = control;
        this.runtime = runtime;
        this.file = file;
    }

    /** What a reload did. */
    public sealed interface Outcome {
        /** Changes made (maybe none), and differences left for a restart. */
        record Applied(List<String> changes, List<String> restartOnly) implements Outcome { }

        /** The file was not applied at all, and why. */
        record Refused(String reason) implements Outcome { }
    }

    public Outcome run() {
        if (file.isEmpty()) {
            return refused("Sluice was not started from a configuration file: there is nothing to read again");
        }
        Path path = file.get();
        SluiceConfig read;
        try {
            read = ConfigLoader.load(path);
        } catch (ConfigException e) {
            return refused(path + ": " + e.getMessage());
        }
        synchronized (control) {
            ConfigChanges changes = ConfigChanges.between(runtime.config(), read);
            if (!changes.refusals().isEmpty()) {
                return refused(path + ": " + String.join("; ", changes.refusals()));
            }
            if (runtime.config().cluster().isPresent() && !changes.describe().isEmpty()) {
                // Cluster mode: etcd holds the nodes and endpoints every instance runs (BEHAVIOUR §11);
                // one instance applying its file alone would leave the others behind.
                return refused(path + ": in cluster mode nodes and endpoints are shared through etcd; change "
                        + "them through the admin API of any instance");
            }
            Optional<String> primary = primaryRemoved(changes);
            if (primary.isPresent()) {
                return refused(path + ": '" + primary.get() + "' is the primary; it cannot be removed");
            }
            if (!changes.nothingToApply()) {
                try {
                    control.apply(changes.target());
                } catch (AdminException e) {
                    // LiveProxyControl.apply undoes what it began before it throws.
                    return refused(path + ": " + e.getMessage());
                }
            }
            List<String> made = changes.describe();
            if (!changes.restartOnly().isEmpty()) {
                LOG.warn("configuration reload from {}: {} changed in the file but apply only at a restart; "
                        + "still running with the old values", path, String.join(", ", changes.restartOnly()));
            }
            LOG.info("configuration reloaded from {}: {}", path, made.isEmpty() ? "no change to apply"
                    : String.join("; ", made));
            return new Outcome.Applied(made, changes.restartOnly());
        }
    }

    /**
     * A node the file removes that is the primary now. ConfigChanges refuses removing the node the
     * configuration names primary; a switchover or failover since the start may have moved the role
     * to another node, which only the topology shows.
     */
    private Optional<String> primaryRemoved(ConfigChanges changes) {
        return changes.delta().nodesRemoved().stream()
                .filter(name -> runtime.topology().node(name).map(n -> n.isPrimary()).orElse(false)).findFirst();
    }

    private static Outcome refused(String reason) {
        LOG.warn("configuration file refused, nothing changed: {}", reason);
        return new Outcome.Refused(reason);
    }
}
