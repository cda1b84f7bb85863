package dev.sluice.server.admin;

import dev.sluice.server.config.ConfigChanges;
import dev.sluice.server.config.ConfigException;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.EndpointConfig;
import dev.sluice.server.config.NodeConfig;
import dev.sluice.server.config.SluiceConfig;
import dev.sluice.server.runtime.ProxyRuntime;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configuration file read again and applied to the running proxy (BEHAVIOUR §13: SIGHUP).
 * Nothing of it is new machinery: the file is loaded and validated as at start, its differences
 * from the running configuration are worked out ({@link ConfigChanges}), and each is made through
 * the admin API's own operations, so a weight changed in the file behaves exactly as one changed by
 * ModifyDBProxyEndpoint. A file that does not load, or that asks for what the API would refuse,
 * changes nothing.
 *
 * <p>The operations go nodes added, endpoints added, endpoints modified, endpoints removed, nodes
 * removed: each one then finds what it needs in place (an endpoint's new node exists; a node leaves
 * no endpoint that still lists it). They run under the control's lock, so no admin call interleaves.
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

        /** Some operations were made before one failed (a port already taken, typically). */
        record Partial(List<String> made, String failure) implements Outcome { }
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
            List<String> made = new ArrayList<>();
            try {
                apply(changes, made);
            } catch (AdminException | IllegalStateException e) {
                LOG.warn("configuration reload from {} stopped: {}; made before that: {}", path, e.getMessage(),
                        made.isEmpty() ? "nothing" : String.join("; ", made));
                return new Outcome.Partial(made, e.getMessage());
            }
            if (!changes.restartOnly().isEmpty()) {
                LOG.warn("configuration reload from {}: {} changed in the file but apply only at a restart; "
                        + "still running with the old values", path, String.join(", ", changes.restartOnly()));
            }
            LOG.info("configuration reloaded from {}: {}", path, made.isEmpty() ? "no change to apply"
                    : String.join("; ", made));
            return new Outcome.Applied(made, changes.restartOnly());
        }
    }

    private void apply(ConfigChanges changes, List<String> made) {
        List<String> described = changes.describe();
        int next = 0;
        for (NodeConfig n : changes.addedNodes()) {
            control.addNode(n);
            made.add(described.get(next++));
        }
        for (EndpointConfig e : changes.addedEndpoints()) {
            control.addEndpoint(e);
            made.add(described.get(next++));
        }
        for (EndpointConfig e : changes.modifiedEndpoints()) {
            control.modifyEndpoint(e);
            made.add(described.get(next++));
        }
        for (String e : changes.removedEndpoints()) {
            control.removeEndpoint(e);
            made.add(described.get(next++));
        }
        for (String n : changes.removedNodes()) {
            control.removeNode(n);
            made.add(described.get(next++));
        }
    }

    private static Outcome refused(String reason) {
        LOG.warn("configuration file refused, nothing changed: {}", reason);
        return new Outcome.Refused(reason);
    }
}
