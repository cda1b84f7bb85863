package dev.sluice.server.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.server.admin.AdminException;
import dev.sluice.server.admin.ConfigEdits;
import dev.sluice.server.admin.LiveProxyControl;
import dev.sluice.server.admin.NodeDescription;
import dev.sluice.server.admin.ProxyControl;
import dev.sluice.server.admin.ProxyDescription;
import dev.sluice.server.config.ConfigException;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.ConfigWriter;
import dev.sluice.server.config.SharedConfig;
import dev.sluice.server.config.SluiceConfig;
import dev.sluice.server.digest.DigestStore;
import dev.sluice.server.switchover.SwitchoverOutcome;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API of an instance in cluster mode (BEHAVIOUR §11). A change of nodes or endpoints is
 * not applied here: it is made on the shared configuration as etcd holds it, validated as the file
 * would be, and written back with a compare-and-swap on the revision read. Every instance — this one
 * included — then runs it from its watch; the answer waits until this one has. A change that lost
 * the swap to another is refused (409) and one that could not reach etcd too (503): nothing is
 * merged, so nothing is lost silently. Drains are shared the same way. Reads and digests stay this
 * instance's; a switchover or failover runs only on the leader ({@link LeaderOnly}).
 */
public final class ClusterProxyControl implements ProxyControl {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterProxyControl.class);
    /** How long a committed change may take to run on this instance before the answer says so. */
    static final Duration LOCAL_RUN_WAIT = Duration.ofSeconds(5);

    private final LiveProxyControl local;
    private final ClusterMember member;

    public ClusterProxyControl(LiveProxyControl local, ClusterMember member) {
        this.local = local;
        this.member = member;
    }

    @Override
    public ProxyDescription describe() {
        ProxyDescription d = local.describe();
        return new ProxyDescription(d.version(), d.uptimeSeconds(), d.endpoints(), d.nodes(), d.switchover(),
                d.failover(), member.instances(), member.leader().orElse(null));
    }

    @Override
    public Optional<ObjectNode> describeEndpoint(String name) {
        return local.describeEndpoint(name);
    }

    @Override
    public ObjectNode modifyEndpoint(String name, JsonNode changes) {
        return ConfigEdits.settings(change(c -> ConfigEdits.modifyEndpoint(c, name, changes)).config(), name);
    }

    @Override
    public ObjectNode addEndpoint(JsonNode definition) {
        SluiceConfig target = change(c -> ConfigEdits.addEndpoint(c, definition)).config();
        return ConfigEdits.settings(target, definition.get("name").asText());
    }

    @Override
    public void removeEndpoint(String name) {
        change(c -> ConfigEdits.removeEndpoint(c, name));
    }

    @Override
    public NodeDescription addNode(JsonNode definition) {
        SluiceConfig target = change(c -> ConfigEdits.addNode(c, local.topology(), definition)).config();
        return local.describeNode(target.nodes().get(target.nodes().size() - 1).name());
    }

    @Override
    public void removeNode(String name) {
        change(c -> ConfigEdits.removeNode(c, local.topology(), name));
    }

    @Override
    public NodeDescription drainNode(String name) {
        changeShared(s -> {
            if (s.config().node(name).isEmpty()) {
                throw new AdminException(AdminException.NOT_FOUND, "no node '" + name + "'");
            }
            return s.draining(name);
        });
        return local.describeNode(name);
    }

    @Override
    public DigestStore digests() {
        return local.digests();
    }

    @Override
    public void persist() {
        local.persist();
    }

    @Override
    public CompletableFuture<SwitchoverOutcome> switchover(Optional<String> to) {
        leaderOnly("switchover");
        return local.switchover(to);
    }

    @Override
    public CompletableFuture<SwitchoverOutcome> failover(Optional<String> to) {
        leaderOnly("failover");
        return local.failover(to);
    }

    /** Throws the refusal (answered with its status by the admin API) unless this instance is leader. */
    private void leaderOnly(String what) {
        Optional<AdminException> refused = LeaderOnly.refusal(what, member.name(), member.leading(), member.leader(),
                member.instances(), member.reachable());
        if (refused.isPresent()) {
            LOG.info("{} refused: {}", what, refused.get().getMessage());
            throw refused.get();
        }
    }

    /**
     * Makes {@code edit} on the configuration etcd holds, writes it back if nothing changed it
     * meanwhile, and waits until this instance runs it; what was written.
     */
    private SharedConfig change(UnaryOperator<SluiceConfig> edit) {
        return changeShared(s -> s.with(edit.apply(s.config())));
    }

    private SharedConfig changeShared(UnaryOperator<SharedConfig> edit) {
        EtcdStore store = member.store();
        Optional<StoredConfig> stored;
        try {
            stored = store.readConfig();
        } catch (EtcdUnreachableException e) {
            LOG.info("change refused: etcd is unreachable ({})", e.getMessage());
            throw new ChangeOutcome.Unreachable(e.getMessage()).refusal();
        }
        StoredConfig read = stored.orElseThrow(() -> new AdminException(AdminException.CONFLICT,
                "etcd holds no shared configuration under this prefix right now (it is written again within a "
                        + "second); retry"));
        SharedConfig base;
        try {
            base = ConfigLoader.shared(local.config(), read.yaml());
        } catch (ConfigException e) {
            throw new AdminException(AdminException.CONFLICT, "the shared configuration in etcd (revision "
                    + read.modRevision() + ") is invalid: " + e.getMessage() + "; fix it there first");
        }
        SharedConfig target = edit.apply(base);
        ChangeOutcome outcome = store.swap(ConfigWriter.sharedYaml(target), read.modRevision());
        if (outcome instanceof ChangeOutcome.Conflict c) {
            LOG.info("change refused: the shared configuration changed after revision {}", c.readRevision());
            throw c.refusal();
        }
        if (outcome instanceof ChangeOutcome.Unreachable u) {
            LOG.info("change refused: etcd is unreachable ({})", u.why());
            throw u.refusal();
        }
        long revision = ((ChangeOutcome.Committed) outcome).revision();
        LOG.info("change written to etcd at revision {}", revision);
        Optional<String> refused;
        try {
            refused = member.awaitSettled(revision, LOCAL_RUN_WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AdminException(AdminException.CONFLICT, "interrupted while waiting for the change to run");
        }
        if (refused.isPresent()) {
            throw new AdminException(AdminException.CONFLICT, "the change is in etcd (revision " + revision
                    + ") but this instance does not run it: " + refused.get());
        }
        return target;
    }
}
