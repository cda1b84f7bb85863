package dev.sluice.server;

import dev.sluice.protocol.Capabilities;
import dev.sluice.server.admin.AdminServer;
import dev.sluice.server.admin.ConfigReload;
import dev.sluice.server.admin.InstanceDescription;
import dev.sluice.server.cluster.ClusterMember;
import dev.sluice.server.cluster.ClusterProxyControl;
import dev.sluice.server.admin.LiveProxyControl;
import dev.sluice.server.admin.ProxyControl;
import dev.sluice.server.auth.AccountStore;
import dev.sluice.server.auth.Authenticator;
import dev.sluice.server.auth.ClientSecurity;
import dev.sluice.server.auth.LoginThrottle;
import dev.sluice.server.auth.Credential;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.TcpBackendConnector;
import dev.sluice.server.backend.BackendConnector;
import dev.sluice.server.backend.InternalQuery;
import dev.sluice.server.backend.LoginRequest;
import dev.sluice.server.switchover.Failovers;
import dev.sluice.server.switchover.Switchovers;
import dev.sluice.server.backend.QueryResult;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.EndpointConfig;
import dev.sluice.server.config.MonitorConfig;
import dev.sluice.server.consistency.PrimaryPositionSource;
import dev.sluice.server.metrics.SluiceMetrics;
import dev.sluice.server.metrics.TimedBackendConnector;
import dev.sluice.server.monitor.Monitor;
import dev.sluice.server.monitor.TopologyHolder;
import dev.sluice.server.config.SluiceConfig;
import dev.sluice.server.config.UserConfig;
import dev.sluice.server.frontend.EndpointListener;
import dev.sluice.server.history.HistorySampler;
import dev.sluice.server.history.Readings;
import dev.sluice.server.history.RecentHistory;
import dev.sluice.server.net.Sockets;
import dev.sluice.server.net.Transport;
import dev.sluice.server.runtime.EndpointLifecycle;
import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.GracefulStop;
import dev.sluice.server.runtime.ShutdownReport;
import dev.sluice.server.runtime.NodeRef;
import dev.sluice.server.runtime.ProxyRuntime;
import dev.sluice.server.runtime.ServerIdentity;
import dev.sluice.server.tls.BackendTlsContexts;
import dev.sluice.server.tls.ClientTls;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Sluice: event loops, the shared runtime, and one listener per endpoint. Started by
 * the CLI's {@code run}, and in-process by the integration tests.
 */
public final class SluiceServer implements AutoCloseable, EndpointLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(SluiceServer.class);
    private static final Duration ACCOUNT_RELOAD_MIN_INTERVAL = Duration.ofSeconds(1);
    private static final Duration STARTUP_ACCOUNT_WAIT = Duration.ofSeconds(10);
    private static final int UTF8MB4_GENERAL_CI = 45;
    private static final java.time.Duration PRIMARY_POSITION_TIMEOUT = java.time.Duration.ofSeconds(1);
    private static final int FIRST_ROUND_INTERVALS = 2;
    private static final long SHUTDOWN_WAIT_SECONDS = 4;
    /** How long a listening socket may take to close when Sluice stops accepting. */
    private static final Duration LISTENER_CLOSE_WAIT = Duration.ofSeconds(1);
    /** How long a stop waits for its sockets to close before it ends the I/O threads anyway. */
    private static final Duration SOCKETS_CLOSE_WAIT = Duration.ofSeconds(2);
    /** How long a metrics scrape waits for an I/O thread to report its pools' use. */
    private static final Duration POOL_READ_TIMEOUT = Duration.ofSeconds(1);
    /** What Sluice's own connections (monitor, account loading) negotiate. */
    static final long INTERNAL_CAPABILITIES = Capabilities.CLIENT_PROTOCOL_41 | Capabilities.CLIENT_SECURE_CONNECTION
            | Capabilities.CLIENT_PLUGIN_AUTH | Capabilities.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
            | Capabilities.CLIENT_TRANSACTIONS | Capabilities.CLIENT_MULTI_RESULTS | Capabilities.CLIENT_LONG_PASSWORD
            | Capabilities.CLIENT_DEPRECATE_EOF | Capabilities.CLIENT_SESSION_TRACK;

    private final Transport transport;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    /** Every backend socket Sluice opened, to check at the end that none outlived the I/O threads. */
    private final TcpBackendConnector backendSockets;
    /** Every client socket accepted and not yet closed. */
    private final ChannelGroup clientSockets = new DefaultChannelGroup("client connections", GlobalEventExecutor.INSTANCE);
    private final ProxyRuntime runtime;
    private final Monitor monitor;
    private final PrimaryPositionSource primaryPositions;
    private final List<EndpointListener> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final SluiceMetrics metrics = new SluiceMetrics();
    private final LiveProxyControl control;
    private final ProxyControl adminControl;
    private final Optional<ClusterMember> cluster;
    private final AdminServer admin;
    private final HistorySampler history;
    private final ConfigReload reload;
    private final AtomicBoolean closed = new AtomicBoolean();
    private InetSocketAddress adminAddress;

    private SluiceServer(SluiceConfig config, Optional<Path> configFile, Optional<ClusterMember> cluster) {
        this.cluster = cluster;
        // First: a bad certificate stops the start before any thread exists.
        Optional<Path> configDirectory = configFile.map(f -> f.toAbsolutePath().getParent());
        ClientSecurity clientSecurity = new ClientSecurity(ClientTls.from(config.tls(), configDirectory),
                new LoginThrottle(config.limits().loginFailures(), System::nanoTime));
        this.transport = Transport.best();
        this.boss = transport.newGroup(1, "sluice-accept");
        this.workers = transport.newGroup(config.limits().ioThreads(), "sluice-io");
        ProxyRuntime[] holder = new ProxyRuntime[1];
        BackendTlsContexts backendTls = new BackendTlsContexts(() -> holder[0] == null ? config : holder[0].config(),
                configDirectory);
        config.nodes().forEach(n -> backendTls.apply(n.name()));
        TcpBackendConnector connector = new TcpBackendConnector(transport, config.limits().backendConnectTimeout(),
                config.limits().backendConnectTimeout(), backendTls);
        this.backendSockets = connector;
        Map<String, byte[]> passwords = new HashMap<>();
        for (UserConfig u : config.users()) {
            passwords.put(u.user(), u.password().value().getBytes(StandardCharsets.UTF_8));
        }
        AccountStore accounts = new AccountStore(() -> loadAccounts(holder[0]), passwords,
                ACCOUNT_RELOAD_MIN_INTERVAL, System::nanoTime);
        TopologyHolder topology = new TopologyHolder(ConfigLoader.topologyOf(config.nodes()));
        Set<String> fullAuthUsers = config.users().stream().filter(UserConfig::fullAuth).map(UserConfig::user)
                .collect(Collectors.toSet());
        this.runtime = new ProxyRuntime(config, new TimedBackendConnector(connector, metrics),
                new Authenticator(accounts, fullAuthUsers), topology, metrics);
        runtime.clientSecurity(clientSecurity);
        holder[0] = runtime;
        LoginRequest monitorLogin = monitorLogin(config.monitor());
        this.monitor = new Monitor(topology, connector, workers, config.monitor().schedule(), monitorLogin,
                System::nanoTime);
        runtime.probeNow(monitor::checkNow);
        this.primaryPositions = new PrimaryPositionSource(workers.next(), runtime::primary, connector, monitorLogin,
                PRIMARY_POSITION_TIMEOUT);
        runtime.primaryPositions(primaryPositions);
        Switchovers switchovers = new Switchovers(runtime, workers, () -> monitorLogin(runtime.config().monitor()));
        // In cluster mode only the leader fails over by itself (BEHAVIOUR §11).
        Failovers failovers = new Failovers(runtime, workers, () -> monitorLogin(runtime.config().monitor()),
                switchovers, cluster.<java.util.function.BooleanSupplier>map(m -> m::leading).orElse(() -> true));
        monitor.onChecks(new Monitor.CheckListener() {
            @Override
            public void answered(String node) {
                failovers.answered(node);
            }

            @Override
            public void missed(String node) {
                failovers.missed(node);
            }
        });
        this.control = new LiveProxyControl(runtime, this, configFile, switchovers, failovers);
        metrics.registerGauges(control::describe, () -> runtime.poolUse(POOL_READ_TIMEOUT));
        cluster.ifPresent(m -> metrics.clusterLeader(m::leading));
        this.adminControl = cluster.<ProxyControl>map(m -> new ClusterProxyControl(control, m)).orElse(control);
        RecentHistory recent = new RecentHistory();
        this.history = new HistorySampler(recent, () -> new Readings(
                TimeUnit.MILLISECONDS.toSeconds(System.currentTimeMillis()), System.nanoTime(), control.describe(),
                runtime.poolUse(POOL_READ_TIMEOUT), metrics.statementLatencies(), metrics.consistencyWaits()));
        this.admin = new AdminServer(config.admin(), adminControl, metrics, recent);
        this.reload = new ConfigReload(control, runtime, configFile);
    }

    private static LoginRequest monitorLogin(MonitorConfig monitor) {
        return new LoginRequest(monitor.user(),
                new Credential.PlainPassword(monitor.password().value().getBytes(StandardCharsets.UTF_8)), Optional.empty(),
                INTERNAL_CAPABILITIES, UTF8MB4_GENERAL_CI, 1 << 24, Map.of("program_name", "sluice"));
    }

    public static SluiceServer start(SluiceConfig config) throws InterruptedException {
        return start(config, Optional.empty());
    }

    /** Starts Sluice; {@code configFile} is where {@code persist} writes the running configuration. */
    public static SluiceServer start(SluiceConfig config, Optional<Path> configFile) throws InterruptedException {
        // In cluster mode the nodes and endpoints come from etcd (seeded from this file when it holds none).
        Optional<ClusterMember> cluster = config.cluster()
                .map(c -> new ClusterMember(c, configFile.map(f -> f.toAbsolutePath().getParent())));
        SluiceServer server;
        try {
            server = new SluiceServer(cluster.map(m -> m.joining(config)).orElse(config), configFile, cluster);
        } catch (RuntimeException e) {
            cluster.ifPresent(ClusterMember::close);
            throw e;
        }
        try {
            server.startListening();
            cluster.ifPresent(m -> m.start(server.control, server::instanceDescription));
        } catch (RuntimeException | InterruptedException e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** This instance as it registers itself in cluster mode: where its endpoints and admin API listen. */
    private InstanceDescription instanceDescription() {
        List<String> listen = new ArrayList<>();
        for (EndpointListener l : listeners) {
            listen.add(l.endpoint().name() + "=" + l.localAddress().getHostString() + ":" + l.localAddress().getPort());
        }
        String name = runtime.config().cluster().map(c -> c.name()).orElse("");
        return new InstanceDescription(name, listen, adminAddress.getHostString() + ":" + adminAddress.getPort());
    }

    private void startListening() throws InterruptedException {
        LOG.info("transport: {}, {} I/O threads", transport.name(), runtime.config().limits().ioThreads());
        monitor.start();
        try {
            runtime.authenticator().accounts().load().get(STARTUP_ACCOUNT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.warn("accounts not loaded at start ({}); they load at the first login", e.toString());
        }
        // Replicas take reads once seen healthy: give the monitor its first round before clients come.
        monitor.awaitFirstRound(runtime.config().monitor().interval().multipliedBy(FIRST_ROUND_INTERVALS)
                .plus(runtime.config().monitor().queryTimeout()));
        for (EndpointConfig e : runtime.config().endpoints()) {
            try {
                start(e);
            } catch (IllegalStateException ex) {
                throw new IllegalStateException("endpoint '" + e.name() + "' cannot listen on " + e.listen() + ": "
                        + ex.getMessage(), ex);
            }
        }
        history.start();
        adminAddress = admin.start();
        LOG.info("admin API and dashboard on http://{}:{}/", adminAddress.getHostString(), adminAddress.getPort());
    }

    @Override
    public EndpointRuntime start(EndpointConfig e) {
        EndpointRuntime endpoint = new EndpointRuntime(e, runtime.topology(), runtime.config().limits().ioThreads());
        EndpointListener l = new EndpointListener(endpoint);
        try {
            l.bind(transport, boss, workers, clientSockets, runtime);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while binding " + e.listen(), ex);
        } catch (Exception ex) {
            // Not only RuntimeException: Netty's sync() rethrows a bind failure (java.net.BindException, a
            // checked exception) undeclared, and it must reach the caller (the admin API answers 409 with it).
            throw new IllegalStateException(ex.getMessage() == null ? ex.toString() : ex.getMessage(), ex);
        }
        runtime.addEndpoint(endpoint);
        // Changes from the constructor's snapshot until addEndpoint reached no listener: take them now.
        endpoint.catchUp(runtime::topology);
        listeners.add(l);
        LOG.info("endpoint '{}' ({}) listening on {}", e.name(), e.policy().mode().configName(), l.localAddress());
        return endpoint;
    }

    @Override
    public void stop(String name) {
        for (EndpointListener l : listeners) {
            if (l.endpoint().name().equals(name)) {
                l.close();
                listeners.remove(l);
                l.endpoint().closePools();
            }
        }
        runtime.removeEndpoint(name);
    }

    /** Where the admin API and dashboard listen. */
    public InetSocketAddress adminAddress() {
        return adminAddress;
    }

    /** The admin operations as the admin API runs them (through etcd in cluster mode). */
    public ProxyControl control() {
        return adminControl;
    }

    public ProxyRuntime runtime() {
        return runtime;
    }

    /**
     * The I/O event loops (clients, backends, monitor). Exposed so that a health check can see
     * each loop run a task: one stuck loop stalls every connection it serves.
     */
    public EventLoopGroup ioEventLoops() {
        return workers;
    }

    public Optional<InetSocketAddress> endpointAddress(String name) {
        return listeners.stream().filter(l -> l.endpoint().name().equals(name)).findFirst()
                .map(EndpointListener::localAddress);
    }

    /** Reads the accounts on the primary with the monitor's credentials (and learns its identity). */
    private CompletableFuture<QueryResult> loadAccounts(ProxyRuntime rt) {
        CompletableFuture<QueryResult> out = new CompletableFuture<>();
        Optional<NodeRef> known = rt.primary();
        if (known.isEmpty()) {
            out.completeExceptionally(new IllegalStateException("no primary is known to load accounts from"));
            return out;
        }
        NodeRef primary = known.get();
        LoginRequest login = monitorLogin(rt.config().monitor());
        var loop = workers.next();
        rt.connector().connect(loop, primary.name(), primary.id(), primary.address(), login).addListener(f -> {
            if (!f.isSuccess()) {
                out.completeExceptionally(f.cause());
                return;
            }
            BackendConnection b = (BackendConnection) f.getNow();
            rt.identity(new ServerIdentity(b.greeting().serverVersion(), b.greeting().capabilities(),
                    b.greeting().collation()));
            InternalQuery.run(b, AccountStore.ACCOUNTS_QUERY).whenComplete((r, e) -> {
                b.close();
                if (e != null) {
                    out.completeExceptionally(e);
                } else {
                    out.complete(r);
                }
            });
        });
        return out;
    }

    /**
     * Reads the configuration file again and applies what changed as the admin API would
     * (BEHAVIOUR §13): what SIGHUP does. A file that does not load, or asks for a change that cannot
     * be made while running, changes nothing; the outcome is logged either way.
     */
    public ConfigReload.Outcome reloadConfiguration() {
        return reload.run();
    }

    /**
     * The graceful stop of SIGTERM (BEHAVIOUR §13): no endpoint accepts a new client from the first
     * moment — all listeners close together, so a client cannot slip in through one that closes
     * later — open sessions close at their next transaction boundary, those still busy after
     * {@code timeout} are cut, then everything stops as {@link #close()} does.
     */
    public ShutdownReport shutdown(Duration timeout) throws InterruptedException {
        List<Future<Void>> stopping = new ArrayList<>();
        for (EndpointListener l : listeners) {
            stopping.add(l.stopAccepting());
        }
        for (Future<Void> f : stopping) {
            f.awaitUninterruptibly(LISTENER_CLOSE_WAIT.toMillis());
        }
        int open = runtime.endpoints().stream().mapToInt(e -> e.sessions().size()).sum();
        LOG.info("stopping: {} endpoint(s) no longer accept clients; {} open session(s) get up to {} ms to reach a "
                + "transaction boundary", stopping.size(), open, timeout.toMillis());
        ShutdownReport report = new GracefulStop(runtime.endpoints()).run(timeout);
        LOG.info("stopped: {}", report.describe());
        close();
        return report;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        // First: the instance leaves the registrations and stops running etcd's changes before it stops serving.
        cluster.ifPresent(ClusterMember::close);
        admin.close();
        history.close();
        for (EndpointListener l : listeners) {
            l.close();
            l.endpoint().closePools();
        }
        metrics.close();
        monitor.close();
        primaryPositions.close();
        // Closed by Sluice, not left to the I/O threads' end, which may close none (see Sockets).
        int stillClosing = Sockets.awaitClosed(SOCKETS_CLOSE_WAIT, clientSockets.close(), backendSockets.closeAll());
        if (stillClosing > 0) {
            LOG.warn("stopping: {} socket(s) still closing after {} ms; the I/O threads are ended anyway",
                    stillClosing, SOCKETS_CLOSE_WAIT.toMillis());
        }
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        // Once every I/O thread has ended, no backend socket may be left open (see closeOrphans).
        workers.terminationFuture().addListener(f -> {
            for (String orphan : backendSockets.closeOrphans()) {
                LOG.error("a backend connection outlived its I/O thread and is closed now: {}", orphan);
            }
        });
        // Bounded: during JVM shutdown the termination notice may never be delivered.
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(SHUTDOWN_WAIT_SECONDS, TimeUnit.SECONDS);
    }
}
