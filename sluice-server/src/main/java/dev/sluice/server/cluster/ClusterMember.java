package dev.sluice.server.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.sluice.server.admin.AdminException;
import dev.sluice.server.admin.AdminJson;
import dev.sluice.server.admin.InstanceDescription;
import dev.sluice.server.admin.LiveProxyControl;
import dev.sluice.server.config.ClusterConfig;
import dev.sluice.server.config.ConfigException;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.ConfigWriter;
import dev.sluice.server.config.NodeConfig;
import dev.sluice.server.config.SharedConfig;
import dev.sluice.server.config.SluiceConfig;
import io.etcd.jetcd.Watch;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's part in a cluster (BEHAVIOUR §11). At start it seeds etcd from its file when the
 * prefix holds no configuration, and starts from what etcd holds. Then it runs every later write of
 * the shared configuration — its own admin changes included — from a watch, and once a
 * {@link #TICK} reads etcd again: that read renews the instance's registration, campaigns for the
 * leadership ({@link Leadership}), refreshes the list of instances, and catches up on anything a
 * broken watch missed (etcd restarted, cut off). Every write is run by one thread, in revision
 * order; a revision is run at most once.
 */
public final class ClusterMember implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterMember.class);
    /** How often the instance reads etcd, renews its lease and looks for missed changes. */
    static final Duration TICK = Duration.ofSeconds(1);
    /** A registration outlives a missed renewal or two, and not much more. */
    static final Duration LEASE_TTL = Duration.ofSeconds(5);

    private final ClusterConfig cluster;
    private final EtcdStore store;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sluice-cluster");
        t.setDaemon(true);
        return t;
    });
    private final SettledRevisions settled = new SettledRevisions();
    private LiveProxyControl control;
    private Supplier<InstanceDescription> self;
    private Optional<Watch.Watcher> watcher = Optional.empty();
    private volatile boolean watchBroken;
    private long lease;
    private volatile boolean reachable = true;
    private volatile List<InstanceDescription> instances = List.of();
    /** What the last campaign found; replaced as a whole, read by any thread. */
    private volatile Leadership leadership = Leadership.UNKNOWN;
    /** Whether the log last said this instance is leader. Only on {@link #thread}. */
    private boolean saidLeading;
    /** When the last renewal (or grant) of {@link #lease} was sent. */
    private long renewalSentAt;
    /** The drains of the configuration this instance started with: run once it runs. */
    private List<String> drainingAtStart = List.of();
    /** The primary etcd named at the last revision run, to tell a move from an unrelated change. Only on {@link #thread}. */
    private Optional<String> sharedPrimary = Optional.empty();
    /** The failover's old primary etcd held out at the last revision run. Only on {@link #thread}. */
    private Optional<SharedConfig.FormerPrimary> sharedFormerPrimary = Optional.empty();
    /** Reports written since start. Only on {@link #thread}. */
    private long reports;
    private final InstanceHealth health = new InstanceHealth();

    /**
     * @param configDirectory the configuration file's directory, where relative {@code cluster.tls}
     *     file names are taken from; a certificate or key that cannot be read stops the start
     *     ({@link ConfigException})
     */
    public ClusterMember(ClusterConfig cluster, Optional<Path> configDirectory) {
        this.cluster = cluster;
        this.store = new EtcdStore(cluster, configDirectory);
    }

    /**
     * The configuration to start with: what etcd holds (seeded from {@code file} when it holds
     * nothing), or {@code file} when etcd cannot be reached or holds a configuration that fails the
     * checks (the instance then catches up once etcd is back, or the configuration is fixed).
     *
     * @throws ConfigException when etcd refuses this instance (its certificates, user, password or
     *     permissions): that is not an outage to wait out but a mistake to fix, so the start stops
     */
    public SluiceConfig joining(SluiceConfig file) {
        try {
            store.checkTls();
            for (int attempt = 0; attempt < 2; attempt++) {
                Optional<StoredConfig> stored = store.readConfig();
                SharedConfigDecision.Decision d = SharedConfigDecision.decide(file, stored, 0);
                if (d instanceof SharedConfigDecision.Seed seed) {
                    boolean seeded = store.seed(seed.yaml());
                    LOG.info(seeded ? "cluster '{}': etcd held no configuration; seeded it from this instance's file"
                            : "cluster '{}': another instance seeded the configuration first; using it", cluster.prefix());
                    continue;
                }
                if (d instanceof SharedConfigDecision.Apply apply) {
                    settled.settle(apply.revision(), Optional.empty());
                    drainingAtStart = apply.shared().outOfTraffic();
                    sharedPrimary = apply.sharedPrimary();
                    sharedFormerPrimary = apply.formerPrimary();
                    LOG.info("cluster '{}': starting with the shared configuration at etcd revision {}",
                            cluster.prefix(), apply.revision());
                    return apply.config();
                }
                if (d instanceof SharedConfigDecision.Refuse refuse) {
                    settled.settle(refuse.revision(), Optional.of(refuse.reason()));
                    LOG.error("cluster '{}': the configuration in etcd (revision {}) is invalid and is not used: {}; "
                            + "starting with this instance's file", cluster.prefix(), refuse.revision(), refuse.reason());
                    return file;
                }
            }
        } catch (EtcdRefusedException e) {
            throw new ConfigException("cluster: " + e.getMessage());
        } catch (EtcdUnreachableException e) {
            reachable = false;
            LOG.warn("cluster '{}': etcd {} is unreachable ({}); starting with this instance's file, and "
                    + "following etcd once it answers", cluster.prefix(), cluster.etcd(), e.getMessage());
        }
        return file;
    }

    /** Starts following etcd and registering, once the instance listens ({@code self} says where). */
    public void start(LiveProxyControl running, Supplier<InstanceDescription> whoAmI) {
        this.control = running;
        this.self = whoAmI;
        store.started();
        running.drainOnly(drainingAtStart);
        running.formerPrimaryShared(sharedFormerPrimary, Optional.empty());
        thread.execute(this::watch);
        thread.scheduleWithFixedDelay(this::tick, 0, TICK.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Every instance registered now (or when etcd last answered). */
    public List<InstanceDescription> instances() {
        return instances;
    }

    /**
     * Whether this instance is the leader now: it holds the leader key, and the last renewal of its
     * lease was sent recently enough that etcd surely keeps the lease still (BEHAVIOUR §11). Read
     * against the clock at every call, so a tick held up by an unreachable etcd ends it too.
     */
    public boolean leading() {
        return leadership.leadingAt(System.nanoTime(), LEASE_TTL);
    }

    /** The leader's name as the last campaign found it; empty when unknown (etcd unreachable) or none. */
    public Optional<String> leader() {
        return leadership.leader();
    }

    /** This instance's name. */
    public String name() {
        return cluster.name();
    }

    /** Whether etcd answered the last read. */
    public boolean reachable() {
        return reachable;
    }

    EtcdStore store() {
        return store;
    }

    LiveProxyControl control() {
        return control;
    }

    /**
     * Waits until this instance ran or refused {@code revision}; the reason when it refused it,
     * empty when it runs it.
     */
    Optional<String> awaitSettled(long revision, Duration timeout) throws InterruptedException {
        return settled.await(revision, timeout);
    }

    private void watch() {
        watcher.ifPresent(Watch.Watcher::close);
        watchBroken = false;
        watcher = Optional.of(store.watchConfig(settled.newest(),
                stored -> thread.execute(() -> consider(Optional.of(stored))),
                error -> {
                    LOG.warn("cluster '{}': the watch on etcd ended ({}); resuming it", cluster.prefix(),
                            error.toString());
                    watchBroken = true;
                }));
    }

    private void tick() {
        try {
            Optional<StoredConfig> stored = store.readConfig();
            if (!reachable) {
                LOG.info("cluster '{}': etcd answers again; changes are accepted again", cluster.prefix());
            }
            reachable = true;
            consider(stored);
            if (watchBroken) {
                watch();
            }
            keepRegistered();
            campaign();
            instances = readInstances();
            shareMoves(stored);
        } catch (EtcdUnreachableException e) {
            if (thread.isShutdown()) {
                return;
            }
            // The lease was not renewed: whoever holds the key, this instance no longer counts on it.
            leadership = Leadership.UNKNOWN;
            sayWhetherLeading("etcd is unreachable, so its lease cannot be renewed");
            if (reachable) {
                LOG.warn("cluster '{}': {} ({}); serving with the configuration of revision {}; "
                        + "admin changes are refused until it is back", cluster.prefix(),
                        e instanceof EtcdRefusedException ? "etcd refuses this instance" : "etcd is unreachable",
                        e.getMessage(), settled.newest());
            }
            reachable = false;
        } catch (RuntimeException e) {
            leadership = Leadership.UNKNOWN;
            sayWhetherLeading("its tick failed: " + e);
            LOG.error("cluster '{}': {}", cluster.prefix(), e.toString(), e);
        }
    }

    /** Takes the leader key if no one holds it, and learns who does. Only on {@link #thread}. */
    private void campaign() throws EtcdUnreachableException {
        leadership = Leadership.afterCampaign(store.campaign(cluster.name(), lease), lease, renewalSentAt);
        sayWhetherLeading(leadership.leader().map(l -> "'" + l + "' holds the leadership")
                .orElse("no instance holds the leadership"));
    }

    /** Logs when this instance becomes or stops being leader; {@code otherwise} says why it is not. */
    private void sayWhetherLeading(String otherwise) {
        boolean now = leading();
        if (now && !saidLeading) {
            LOG.info("cluster '{}': this instance '{}' is now the leader: automatic failovers, switchovers and "
                    + "failovers are run here", cluster.prefix(), cluster.name());
        } else if (!now && saidLeading) {
            LOG.warn("cluster '{}': this instance '{}' is no longer the leader: {}", cluster.prefix(), cluster.name(),
                    leadership.mine() ? "its lease was last renewed more than "
                            + LEASE_TTL.minus(Leadership.GUARD).toMillis() + " ms ago" : otherwise);
        }
        saidLeading = now;
    }

    /** Runs, refuses or seeds what etcd holds. Only on {@link #thread}. */
    private void consider(Optional<StoredConfig> stored) {
        SharedConfigDecision.Decision d = SharedConfigDecision.decide(
                new SharedConfig(control.config(), control.draining()), stored, settled.newest(), sharedPrimary);
        if (d instanceof SharedConfigDecision.Apply apply) {
            try {
                apply.follow().ifPresent(control::followPrimary);
                control.apply(apply.config());
                control.formerPrimaryShared(apply.formerPrimary(), sharedFormerPrimary);
                control.drainOnly(MovesToShare.outOfTraffic(apply.shared(), control.leftBehind()));
                sharedPrimary = apply.sharedPrimary();
                sharedFormerPrimary = apply.formerPrimary();
                settled.settle(apply.revision(), Optional.empty());
                LOG.info("cluster '{}': running the shared configuration of etcd revision {}", cluster.prefix(),
                        apply.revision());
            } catch (AdminException e) {
                refuse(apply.revision(), e.getMessage());
            }
        } else if (d instanceof SharedConfigDecision.Refuse refuse) {
            refuse(refuse.revision(), refuse.reason());
        } else if (d instanceof SharedConfigDecision.Seed seed) {
            try {
                if (store.seed(seed.yaml())) {
                    LOG.warn("cluster '{}': etcd held no configuration; wrote this instance's running one",
                            cluster.prefix());
                }
            } catch (EtcdUnreachableException e) {
                reachable = false;
            }
        }
    }

    /**
     * Writes what a switchover or failover moved into the shared configuration ({@link MovesToShare}),
     * with a compare-and-swap on the revision {@code stored} was read at: one that lost to another
     * change is tried again at the next tick, from what etcd holds then. Only on {@link #thread}, after
     * {@code stored} was run, so that what differs is this instance's own.
     */
    private void shareMoves(Optional<StoredConfig> stored) throws EtcdUnreachableException {
        if (stored.isEmpty() || settled.newest() != stored.get().modRevision()
                || settled.lastGood() != stored.get().modRevision()) {
            return;
        }
        SharedConfig shared;
        try {
            shared = ConfigLoader.shared(control.config(), stored.get().yaml());
        } catch (ConfigException e) {
            return;
        }
        boolean leading = leading();
        if (leading) {
            control.lookForFormerPrimary();
        }
        Optional<SharedConfig> write = MovesToShare.next(shared, leading, primaryHere(), control.leftBehind());
        if (write.isEmpty()) {
            return;
        }
        ChangeOutcome outcome = store.swap(ConfigWriter.sharedYaml(write.get()), stored.get().modRevision());
        if (outcome instanceof ChangeOutcome.Committed c) {
            LOG.info("cluster '{}': wrote where the primary is ({}) and the failover's old primary held out ({}) "
                    + "at etcd revision {}", cluster.prefix(),
                    write.get().config().primary().map(NodeConfig::name).orElse("none"),
                    write.get().formerPrimary().map(SharedConfig.FormerPrimary::node).orElse("none"), c.revision());
        } else if (outcome instanceof ChangeOutcome.Unreachable u) {
            throw new EtcdUnreachableException(u.why());
        }
    }

    private void refuse(long revision, String reason) {
        settled.settle(revision, Optional.of(reason));
        LOG.error("cluster '{}': the configuration of etcd revision {} is refused: {}; this instance keeps running "
                + "the last good one (revision {})", cluster.prefix(), revision, reason, settled.lastGood());
    }

    private void keepRegistered() throws EtcdUnreachableException {
        // Taken before the call: etcd counts the lease's time from when the call reached it, not earlier.
        long sentAt = System.nanoTime();
        if (lease != 0 && store.renew(lease)) {
            renewalSentAt = sentAt;
            report();
            return;
        }
        // Forgotten first: if the grant fails, the next tick must not renew (or campaign with) the expired lease.
        lease = 0;
        lease = store.grantLease(LEASE_TTL);
        renewalSentAt = sentAt;
        report();
        LOG.info("cluster '{}': registered as '{}' (lease of {} s)", cluster.prefix(), cluster.name(),
                LEASE_TTL.toSeconds());
    }

    /** The node this instance sends writes to. */
    private Optional<String> primaryHere() {
        return control.topology().primary().map(dev.sluice.routing.topology.Node::name);
    }

    /** Writes this instance's registration, under its lease, with what it runs now. */
    private void report() throws EtcdUnreachableException {
        InstanceDescription now = self.get().reporting(settled.lastGood(), primaryHere().orElse(null),
                control.openSessions(), ++reports);
        try {
            store.register(AdminJson.MAPPER.writeValueAsString(now), lease);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an instance description always serializes", e);
        }
    }

    private List<InstanceDescription> readInstances() throws EtcdUnreachableException {
        List<InstanceDescription> out = new ArrayList<>();
        for (String json : store.registrations()) {
            try {
                out.add(AdminJson.MAPPER.readValue(json, InstanceDescription.class));
            } catch (JsonProcessingException e) {
                LOG.warn("cluster '{}': a registration is not an instance description: {}", cluster.prefix(), json);
            }
        }
        out.sort(Comparator.comparing(InstanceDescription::name));
        return health.judge(out, System.nanoTime(), settled.lastGood(), primaryHere());
    }

    @Override
    public void close() {
        thread.shutdownNow();
        try {
            thread.awaitTermination(EtcdStore.CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        watcher.ifPresent(Watch.Watcher::close);
        leadership = Leadership.UNKNOWN;
        if (saidLeading) {
            LOG.info("cluster '{}': this instance '{}' is no longer the leader: it closes", cluster.prefix(),
                    cluster.name());
        }
        if (lease != 0) {
            try {
                store.revoke(lease);
            } catch (EtcdUnreachableException e) {
                LOG.info("cluster '{}': could not end the registration and leadership ({}); they expire within {} s",
                        cluster.prefix(), e.getMessage(), LEASE_TTL.toSeconds());
            }
        }
        store.close();
    }
}
