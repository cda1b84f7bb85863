package dev.sluice.it.support;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The real MariaDB cluster the integration tests run against: one primary and three replicas
 * with GTID replication, started by {@code scripts/sandbox.sh} once per test JVM (that is, once
 * per test run) and stopped by a shutdown hook. Its directory, {@code sluice-it/target/sandbox},
 * is kept for diagnosis: each node's {@code error.log} is there, and the harness's own commands
 * are logged in {@code sluice-it/target/sandbox-harness.log}.
 *
 * <pre>
 *   primary  127.0.0.1:3321  server_id 1   writable
 *   ro1      127.0.0.1:3322  server_id 2   read_only, replicates from primary
 *   ro2      127.0.0.1:3323  server_id 3   read_only, replicates from primary
 *   ro3      127.0.0.1:3324  server_id 4   read_only, replicates from primary
 * </pre>
 *
 * <p>Ports differ from the demo's (3311..) so both can run at once. Accounts: {@value #APP_USER} /
 * {@value #APP_PASSWORD} (all privileges except {@code READ_ONLY ADMIN}), {@value #MONITOR_USER} /
 * {@value #MONITOR_PASSWORD}. Databases {@code test} and {@code sbtest}.
 *
 * <p>A test that breaks something (kills, pauses, stops replication, switches over) calls
 * {@link #restoreHealthy()} in its {@code @AfterEach} or {@code @AfterAll}.
 */
public final class SandboxCluster {

    public static final String APP_USER = "app";
    public static final String APP_PASSWORD = "app";
    public static final String MONITOR_USER = "monitor";
    public static final String MONITOR_PASSWORD = "monitor";
    public static final int REPLICAS = 3;
    /**
     * First port of the cluster; {@code -Dsluice.sandbox.port=P} moves it, so that two checkouts
     * (or two people) can run the integration tests at the same time.
     */
    public static final int BASE_PORT = Integer.getInteger("sluice.sandbox.port", 3321);
    private static final int DEFAULT_BASE_PORT = 3321;
    /**
     * {@code -Dsluice.sandbox.dir=D} puts the cluster elsewhere; by default a moved base port gets
     * its own directory too ({@code target/sandbox-P}), so it never meets the default cluster's.
     */
    private static final String DIR_PROPERTY = "sluice.sandbox.dir";

    private static final Duration SCRIPT_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration STOP_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration NODE_EXIT_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration HEALTHY_CATCH_UP_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration REPLICATION_RECONNECT_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(100);
    private static final int CONNECT_TIMEOUT_MS = 5_000;
    private static final String ROOT_PROPERTY = "sluice.root";

    private static SandboxCluster instance;

    private final Path root;
    private final Path dir;
    private final List<SandboxNode> nodes;
    private final List<NodeProcess> processes;
    private final CommandRunner runner;
    private final RootClient rootClient;
    private final ReplicationTopology topology;

    private SandboxCluster(Path root) {
        this.root = root;
        String configured = System.getProperty(DIR_PROPERTY, "");
        this.dir = !configured.isBlank() ? Path.of(configured).toAbsolutePath()
                : root.resolve(BASE_PORT == DEFAULT_BASE_PORT ? "sluice-it/target/sandbox"
                        : "sluice-it/target/sandbox-" + BASE_PORT);
        List<SandboxNode> all = new ArrayList<>();
        List<NodeProcess> procs = new ArrayList<>();
        for (int k = 0; k <= REPLICAS; k++) {
            SandboxNode node = SandboxNode.of(k, BASE_PORT);
            all.add(node);
            procs.add(new NodeProcess(node, nodeDir(node)));
        }
        this.nodes = List.copyOf(all);
        this.processes = List.copyOf(procs);
        this.runner = new CommandRunner(root, dir.resolveSibling(dir.getFileName() + "-harness.log"));
        this.rootClient = new RootClient(runner, node -> nodeDir(node).resolve("my.cnf"));
        this.topology = new ReplicationTopology(nodes, rootClient);
    }

    /** The cluster, started on first use and healthy: 1 primary + 3 replicas, caught up. */
    public static synchronized SandboxCluster get() {
        if (instance == null) {
            SandboxCluster cluster = new SandboxCluster(findRepositoryRoot());
            cluster.startWholeCluster();
            Runtime.getRuntime().addShutdownHook(new Thread(cluster::stopWholeCluster, "sandbox-stop"));
            cluster.restoreHealthy();
            instance = cluster;
        }
        return instance;
    }

    // ---- the nodes --------------------------------------------------------------------------

    public List<SandboxNode> nodes() {
        return nodes;
    }

    /** Node 0, the primary of the healthy cluster. */
    public SandboxNode primary() {
        return nodes.get(0);
    }

    public List<SandboxNode> replicas() {
        return nodes.subList(1, nodes.size());
    }

    /** The node called {@code primary}, {@code ro1}, {@code ro2} or {@code ro3}. */
    public SandboxNode node(String name) {
        return nodes.stream().filter(n -> n.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no sandbox node named '" + name + "'; nodes: " + nodes));
    }

    /** The cluster's directory: {@code nodeK/} holds each node's datadir, my.cnf and error.log. */
    public Path directory() {
        return dir;
    }

    /** The CA that signed every node's TLS certificate ({@code scripts/sandbox.sh} makes it). */
    public Path tlsCa() {
        return dir.resolve("tls/ca.pem");
    }

    // ---- SQL --------------------------------------------------------------------------------

    /** A MariaDB Connector/J URL for the node, database {@code test}, without credentials. */
    public String jdbcUrl(SandboxNode node) {
        return "jdbc:mariadb://127.0.0.1:" + node.port() + "/test";
    }

    /** A new connection to the node as {@value #APP_USER}, straight to the server (no Sluice). */
    public Connection connect(SandboxNode node) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", APP_USER);
        properties.setProperty("password", APP_PASSWORD);
        properties.setProperty("connectTimeout", Integer.toString(CONNECT_TIMEOUT_MS));
        return DriverManager.getConnection(jdbcUrl(node), properties);
    }

    /** Runs statements on the node as {@value #APP_USER}, in order, each in autocommit. */
    public void exec(SandboxNode node, String... statements) {
        try (Connection connection = connect(node); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        } catch (SQLException e) {
            throw new SandboxException("on " + node + ": " + e.getMessage(), e);
        }
    }

    /** The first column of the first row of a query run as {@value #APP_USER}; null for SQL NULL. */
    public String queryString(SandboxNode node, String sql) {
        try (Connection connection = connect(node); Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            if (!rs.next()) {
                throw new SandboxException("on " + node + ": `" + sql + "` returned no row");
            }
            return rs.getString(1);
        } catch (SQLException e) {
            throw new SandboxException("on " + node + ": " + e.getMessage(), e);
        }
    }

    /** One value (tab-separated columns of the first row) of a query run as root on the node's socket. */
    public String rootQuery(SandboxNode node, String sql) {
        return rootClient.query(node, sql);
    }

    /** What is wrong with replication now (a writable replica, a stopped thread …); empty when healthy. */
    public List<String> replicationProblems() {
        return topology.problems();
    }

    /** {@code @@server_id} as the node reports it. */
    public long serverIdOf(SandboxNode node) {
        return Long.parseLong(queryString(node, "SELECT @@server_id"));
    }

    /**
     * Waits until every running, unpaused replica has applied everything in the primary's binlog
     * ({@code MASTER_GTID_WAIT} on the primary's {@code @@gtid_binlog_pos}).
     */
    public void waitForReplicasCaughtUp(Duration timeout) {
        String position = queryString(primary(), "SELECT @@gtid_binlog_pos");
        long deadline = System.nanoTime() + timeout.toNanos();
        for (SandboxNode replica : replicas()) {
            if (!processOf(replica).isRunning() || processOf(replica).isPaused()) {
                continue;
            }
            double remainingSeconds = Math.max(0.001, (deadline - System.nanoTime()) / 1e9);
            String result;
            try (Connection connection = connect(replica);
                    PreparedStatement wait = connection.prepareStatement("SELECT MASTER_GTID_WAIT(?, ?)")) {
                wait.setString(1, position);
                wait.setDouble(2, remainingSeconds);
                try (ResultSet rs = wait.executeQuery()) {
                    rs.next();
                    result = rs.getString(1);
                }
            } catch (SQLException e) {
                throw new SandboxException("waiting for " + replica + " to catch up: " + e.getMessage(), e);
            }
            if (!"0".equals(result)) {
                throw new SandboxException(replica + " did not reach the primary's position " + position
                        + " within " + timeout.toMillis() + " ms: " + rootClient.replicaStatus(replica));
            }
        }
    }

    // ---- faults -----------------------------------------------------------------------------

    /** SIGKILL: the node dies at once, as in a crash; returns when the process is gone. */
    public void kill(SandboxNode node) {
        NodeProcess process = processOf(node);
        long pid = process.signal(runner, "KILL");
        process.awaitExit(pid, NODE_EXIT_TIMEOUT);
    }

    /** SIGSTOP: the node freezes; connections stay open and hang. Undo with {@link #resume}. */
    public void pause(SandboxNode node) {
        NodeProcess process = processOf(node);
        long pid = process.signal(runner, "STOP");
        process.awaitPaused(pid, NODE_EXIT_TIMEOUT);
    }

    /** SIGCONT: a paused node goes on. */
    public void resume(SandboxNode node) {
        processOf(node).signal(runner, "CONT");
    }

    public boolean isRunning(SandboxNode node) {
        return processOf(node).isRunning();
    }

    public boolean isPaused(SandboxNode node) {
        return processOf(node).isPaused();
    }

    /**
     * Starts a stopped (e.g. killed) node and waits until it answers with its replication attached:
     * a replica's threads run again and it has caught up (when the primary is up); a primary's
     * replicas, those whose IO thread was not stopped on purpose, are connected to it again.
     */
    public void start(SandboxNode node) {
        sandboxScript("start-node", node.name());
        awaitStarted(node);
    }

    /**
     * Starts a killed former primary that is to rejoin as a replica ({@code start-node --as-replica}):
     * its crash recovery rolls back the commits that still waited for a semi-synchronous
     * acknowledgement when it died, as an operator does before rejoining it. Waits as {@link #start}.
     */
    public void startAsReplica(SandboxNode node) {
        sandboxScript("start-node", node.name(), "--as-replica");
        awaitStarted(node);
    }

    private void awaitStarted(SandboxNode node) {
        if (node.isPrimary()) {
            for (SandboxNode replica : replicas()) {
                if (processOf(replica).isRunning() && !processOf(replica).isPaused()) {
                    awaitIoThreadReconnected(replica);
                }
            }
        } else if (rootClient.replicaStatus(node).configured()) {
            topology.awaitThreadsRunning(node);
            if (processOf(primary()).isRunning() && !processOf(primary()).isPaused()) {
                topology.awaitPosition(node, topology.binlogPosition(primary()), HEALTHY_CATCH_UP_TIMEOUT);
            }
        }
    }

    /** {@code STOP SLAVE}: both replication threads stop; the replica falls behind. */
    public void stopReplication(SandboxNode replica) {
        rootClient.query(replica, "STOP SLAVE");
    }

    /** {@code START SLAVE}, and waits until both threads run. */
    public void startReplication(SandboxNode replica) {
        rootClient.query(replica, "START SLAVE");
        topology.awaitThreadsRunning(replica);
    }

    /** {@code STOP SLAVE SQL_THREAD}: the replica keeps receiving but stops applying, so its lag grows. */
    public void stopSqlThread(SandboxNode replica) {
        rootClient.query(replica, "STOP SLAVE SQL_THREAD");
    }

    /**
     * {@code CHANGE MASTER TO MASTER_DELAY = seconds} (replication stopped and started again around
     * it, as the server requires): the replica applies each transaction only {@code seconds} after
     * the primary committed it, so its lag is real and grows with every write. 0 undoes it.
     */
    public void delayReplication(SandboxNode replica, int seconds) {
        rootClient.query(replica, "STOP SLAVE; CHANGE MASTER TO MASTER_DELAY = " + seconds + "; START SLAVE");
        topology.awaitThreadsRunning(replica);
    }

    /**
     * Semi-synchronous replication on: the primary acknowledges a commit only once a replica has
     * received it (falling back to asynchronous after 10 s without one), so a commit a client saw
     * acknowledged survives the primary's death. Returns once every replica has reconnected as a
     * semi-synchronous one. The primary waits after writing its binary log and before committing
     * in the engine ({@code AFTER_SYNC}), so a commit still waiting when it dies can be rolled back
     * by its crash recovery ({@link #startAsReplica}). {@link #semiSyncOff()} undoes it; a
     * restarted node starts without it.
     */
    public void semiSyncOn() {
        SandboxNode primary = topology.currentPrimary();
        rootClient.query(primary, "SET GLOBAL rpl_semi_sync_master_timeout = 10000, rpl_semi_sync_master_wait_point = "
                + "'AFTER_SYNC', rpl_semi_sync_master_enabled = 1");
        for (SandboxNode replica : replicas()) {
            // The I/O thread says whether it is semi-synchronous when it connects.
            rootClient.query(replica, "SET GLOBAL rpl_semi_sync_slave_enabled = 1; STOP SLAVE IO_THREAD; "
                    + "START SLAVE IO_THREAD");
            topology.awaitThreadsRunning(replica);
        }
        long deadline = System.nanoTime() + REPLICATION_RECONNECT_TIMEOUT.toNanos();
        String clients;
        while (!(clients = rootClient.query(primary, "SELECT variable_value FROM information_schema.global_status "
                + "WHERE variable_name = 'Rpl_semi_sync_master_clients'")).equals(Integer.toString(REPLICAS))) {
            if (System.nanoTime() > deadline) {
                throw new SandboxException(primary + " has " + clients + " semi-synchronous replicas, not " + REPLICAS);
            }
            NodeProcess.sleep(POLL_INTERVAL);
        }
    }

    /** Asynchronous replication again on every running node. */
    public void semiSyncOff() {
        for (SandboxNode node : nodes) {
            if (processOf(node).isRunning() && !processOf(node).isPaused()) {
                rootClient.query(node, "SET GLOBAL rpl_semi_sync_master_enabled = 0, rpl_semi_sync_slave_enabled = 0");
            }
        }
    }

    /** Whether the replica replicates from node 0 with both threads running and no delay. */
    public boolean replicatesFromPrimary(SandboxNode replica) {
        return rootClient.replicaStatus(replica).replicatesFrom(primary());
    }

    /**
     * Makes {@code newPrimary} the primary: the current primary turns read_only, {@code newPrimary}
     * catches up and turns writable, and every other node replicates from it. {@link #restoreHealthy()}
     * undoes it.
     */
    public void switchover(SandboxNode newPrimary) {
        SandboxNode current = topology.currentPrimary();
        if (!current.equals(newPrimary)) {
            topology.switchover(current, newPrimary);
        }
    }

    /**
     * The first half of {@link #switchover}, as an operator does it: the current primary turns
     * read_only, {@code newPrimary} applies everything it wrote and turns writable. No replica
     * follows it yet: {@link #repointReplicas} does that.
     */
    public void promote(SandboxNode newPrimary) {
        SandboxNode current = topology.currentPrimary();
        if (!current.equals(newPrimary)) {
            topology.promote(current, newPrimary);
        }
    }

    /** The second half of {@link #switchover}: every other node replicates from {@code primary}. */
    public void repointReplicas(SandboxNode primary) {
        topology.repointTo(primary);
    }

    /**
     * Brings the cluster back to health whatever a test did: paused nodes resumed, stopped nodes
     * started, node 0 the writable primary, every replica read_only and replicating from it with
     * both threads running and no delay, all caught up. Cheap when nothing is wrong. When the state
     * cannot be repaired in place (e.g. diverged data), the cluster is rebuilt from scratch.
     */
    public synchronized void restoreHealthy() {
        for (SandboxNode node : nodes) {
            if (processOf(node).isPaused()) {
                resume(node);
            }
        }
        try {
            for (SandboxNode node : nodes) {
                if (!processOf(node).isRunning()) {
                    sandboxScript("start-node", node.name());
                }
            }
            List<String> problems = topology.problems();
            if (!problems.isEmpty()) {
                System.out.println("[sandbox] repairing the replication topology: " + problems);
                topology.repair();
                problems = topology.problems();
                if (!problems.isEmpty()) {
                    throw new SandboxException("still unhealthy after repair: " + problems);
                }
            }
            waitForReplicasCaughtUp(HEALTHY_CATCH_UP_TIMEOUT);
        } catch (SandboxException e) {
            System.out.println("[sandbox] cannot repair in place (" + e.getMessage() + "); rebuilding the cluster");
            rebuild();
        }
    }

    /** A new sandbox in place of this one: for data no repair can reconcile (a diverged node). */
    public synchronized void rebuild() {
        sandboxScript("destroy");
        startWholeCluster();
    }

    // ---- lifecycle --------------------------------------------------------------------------

    private void startWholeCluster() {
        long started = System.nanoTime();
        CommandRunner.Result result = runner.tryRun(SCRIPT_TIMEOUT, sandboxCommand("start"));
        if (result.exitCode() != 0) {
            // A directory left broken by an earlier run (killed mid-way, diverged replicas): start afresh.
            System.out.println("[sandbox] start failed; destroying " + dir + " and starting afresh:\n" + result.output());
            sandboxScript("destroy");
            sandboxScript("start");
        }
        System.out.printf("[sandbox] 1 primary + %d replicas on ports %d-%d ready in %.1f s (%s)%n",
                REPLICAS, BASE_PORT, BASE_PORT + REPLICAS, (System.nanoTime() - started) / 1e9, dir);
    }

    private void stopWholeCluster() {
        CommandRunner.Result result = runner.tryRun(STOP_TIMEOUT, sandboxCommand("stop"));
        if (result.exitCode() != 0) {
            System.err.println("[sandbox] stopping the sandbox failed:\n" + result.output());
        }
    }

    private void sandboxScript(String... arguments) {
        runner.run(SCRIPT_TIMEOUT, sandboxCommand(arguments));
    }

    private List<String> sandboxCommand(String... arguments) {
        List<String> command = new ArrayList<>();
        command.add(root.resolve("scripts/sandbox.sh").toString());
        command.addAll(List.of(arguments));
        command.addAll(List.of("--replicas", Integer.toString(REPLICAS), "--base-port", Integer.toString(BASE_PORT),
                "--dir", dir.toString()));
        return command;
    }

    private void awaitIoThreadReconnected(SandboxNode replica) {
        long deadline = System.nanoTime() + REPLICATION_RECONNECT_TIMEOUT.toNanos();
        ReplicaStatus status = rootClient.replicaStatus(replica);
        while ("Connecting".equals(status.ioRunning())) {
            if (System.nanoTime() > deadline) {
                throw new SandboxException(replica + " did not reconnect to the primary: " + status);
            }
            NodeProcess.sleep(POLL_INTERVAL);
            status = rootClient.replicaStatus(replica);
        }
    }

    private NodeProcess processOf(SandboxNode node) {
        return processes.get(node.index());
    }

    private Path nodeDir(SandboxNode node) {
        return dir.resolve("node" + node.index());
    }

    /** {@code -Dsluice.root} (set by the sluice-it pom), else the nearest parent holding scripts/sandbox.sh. */
    static Path findRepositoryRoot() {
        String property = System.getProperty(ROOT_PROPERTY);
        List<Path> candidates = new ArrayList<>();
        if (property != null && !property.isBlank()) {
            candidates.add(Path.of(property));
        }
        candidates.add(Path.of("").toAbsolutePath());
        for (Path start : candidates) {
            for (Path p = start.toAbsolutePath().normalize(); p != null; p = p.getParent()) {
                if (Files.isExecutable(p.resolve("scripts/sandbox.sh"))) {
                    return p;
                }
            }
        }
        throw new SandboxException("cannot find the repository root (a directory with scripts/sandbox.sh); "
                + "set -D" + ROOT_PROPERTY + "=/path/to/sluice");
    }
}
