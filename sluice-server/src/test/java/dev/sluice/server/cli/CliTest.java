package dev.sluice.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.routing.policy.ConsistencyLevel;
import dev.sluice.routing.policy.EndpointPolicy;
import dev.sluice.routing.policy.ReadWeights;
import dev.sluice.server.admin.AdminJson;
import dev.sluice.server.admin.AdminServer;
import dev.sluice.server.admin.FakeProxyControl;
import dev.sluice.server.admin.NettyLeakRecorder;
import dev.sluice.server.config.AdminConfig;
import dev.sluice.server.history.RecentHistory;
import dev.sluice.server.net.HostPort;
import dev.sluice.server.metrics.SluiceMetrics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The admin commands of the CLI against a real admin server over {@link FakeProxyControl}. */
class CliTest {
    static {
        NettyLeakRecorder.install();
    }

    private static final String TOKEN = "cli-token";

    private FakeProxyControl control;
    private SluiceMetrics metrics;
    private AdminServer server;
    private String admin;

    /** What a run printed, and its exit code. */
    record Run(int exit, String out, String err) {
    }

    @BeforeEach
    void start() throws InterruptedException {
        control = new FakeProxyControl();
        control.load("primary", "rw", new FakeProxyControl.Load(2, 0, 10));
        control.load("ro1", "rw", new FakeProxyControl.Load(3, 1, 120));
        control.load("ro1", "ro", new FakeProxyControl.Load(4, 2, 7));
        control.down("ro2");
        metrics = new SluiceMetrics();
        startServer("");
    }

    private void startServer(String token) throws InterruptedException {
        server = new AdminServer(new AdminConfig(new HostPort("127.0.0.1", 0), token), control, metrics,
                new RecentHistory());
        admin = "http://127.0.0.1:" + server.start().getPort();
    }

    @AfterEach
    void stop() {
        server.close();
        metrics.close();
    }

    @AfterAll
    static void noBufferLeaked() throws InterruptedException {
        assertThat(NettyLeakRecorder.collect()).isEmpty();
    }

    private Run sluice(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--admin");
        all.add(admin);
        return run(all.toArray(String[]::new));
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = new CommandLine(new SluiceMain()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private EndpointPolicy policy(String endpoint) {
        return control.config().endpoints().stream().filter(e -> e.name().equals(endpoint)).findFirst().orElseThrow()
                .policy();
    }

    @Test
    void describeProxyPrintsAlignedTables() {
        Run r = sluice("describe-proxy");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("Sluice 0.1.0-test, up 1h2m\n\nENDPOINTS\n").contains("""
                NAME  LISTEN          MODE        BALANCER      CONSISTENCY  SESSIONS
                rw    127.0.0.1:6033  read-write  least-active  eventual            5
                ro    127.0.0.1:6034  read-only   least-active  eventual            4
                """, """
                NODES
                NAME     ROLE     STATE  RO   REPLICATION  LAG  GTID      SESSIONS  REQUESTS
                primary  primary  up     no   none           -  0-1-1042         2         0
                ro1      replica  up     yes  running       1s  0-1-1041         7         3
                ro2      replica  down   yes  broken         -  0-1-1041         0         0
                """, """
                LOAD PER ENDPOINT
                NODE     ENDPOINT  WEIGHT  READABLE  SESSIONS  REQUESTS  STATEMENTS
                primary  rw             0  no               2         0          10
                ro1      rw           100  yes              3         1         120
                ro1      ro           100  yes              4         2           7
                ro2      rw           100  no               0         0           0
                ro2      ro           100  no               0         0           0
                """);
        assertThat(r.err()).isEmpty();
    }

    @Test
    void jsonPrintsTheApiAnswerAsItIs() throws Exception {
        Run r = sluice("describe-proxy", "--json");
        assertThat(r.exit()).isZero();
        assertThat(AdminJson.MAPPER.readTree(r.out()).at("/nodes/1/endpoints/ro/activeSessions").asInt()).isEqualTo(4);
    }

    @Test
    void describeEndpointPrintsSettingsInTheFormSetTakes() {
        Run r = sluice("describe-endpoint", "ro");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("name                        ro\n").contains(
                "listen                      127.0.0.1:6034\n",
                "nodes                       [ro1, ro2]\n",
                "weights                     auto\n",
                "consistency-timeout         10ms\n",
                "transaction-splitting       false\n",
                "allow                       [127.0.0.0/8, ::1/128]\n");
    }

    @Test
    void modifyEndpointTakesYamlValues() {
        Run r = sluice("modify-endpoint", "rw", "--set", "weights={primary: 0, ro1: 100, ro2: 250}",
                "--set", "max-replication-lag=2s", "--set", "transaction-splitting=true",
                "--set", "allow=[10.0.0.0/8]", "--set", "consistency=session");
        assertThat(r.exit()).as(r.err()).isZero();
        EndpointPolicy p = policy("rw");
        assertThat(p.weights()).isEqualTo(new ReadWeights.Custom(Map.of("primary", 0, "ro1", 100, "ro2", 250)));
        assertThat(p.maxReplicationLag()).isEqualTo(Duration.ofSeconds(2));
        assertThat(p.transactionSplitting()).isTrue();
        assertThat(p.allow()).containsExactly("10.0.0.0/8");
        assertThat(p.consistency()).isEqualTo(ConsistencyLevel.SESSION);
        assertThat(r.out()).startsWith("endpoint 'rw' modified\n\n")
                .contains("weights                     {primary: 0, ro1: 100, ro2: 250}\n");
        assertThat(control.persists()).isZero();
    }

    @Test
    void oneNodesWeightIsSetAndTheOthersKeepTheirs() {
        assertThat(sluice("modify-endpoint", "rw", "--set", "weights={primary: 0, ro1: 100, ro2: 250}").exit()).isZero();
        Run r = sluice("modify-endpoint", "rw", "--set", "weights.ro1=50");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(policy("rw").weights()).isEqualTo(new ReadWeights.Custom(Map.of("primary", 0, "ro1", 50, "ro2", 250)));
    }

    @Test
    void aRefusedChangePrintsTheServerMessageVerbatimAndExits1() {
        Run r = sluice("modify-endpoint", "rw", "--set", "weights={ro1: 20000}", "--set", "consistency=session");
        assertThat(r.exit()).isEqualTo(AdminCommand.REFUSED);
        assertThat(r.err()).isEqualTo("rw.weights.ro1: '20000' is not a weight; use a whole number in 0..10000\n");
        assertThat(r.out()).isEmpty();
        assertThat(policy("rw").consistency()).isEqualTo(ConsistencyLevel.EVENTUAL);

        Run unknown = sluice("describe-endpoint", "nope");
        assertThat(unknown.exit()).isEqualTo(AdminCommand.REFUSED);
        assertThat(unknown.err()).isEqualTo("no endpoint 'nope'; endpoints: rw, ro\n");
    }

    @Test
    void switchoverPrintsItsStepsOrTheRefusal() {
        Run refused = sluice("switchover");
        assertThat(refused.exit()).isEqualTo(AdminCommand.REFUSED);
        assertThat(refused.err()).isEqualTo("switchover refused: no replica can take over\n");

        control.answerSwitchover(new dev.sluice.server.switchover.SwitchoverOutcome("primary", "ro1", List.of(
                new dev.sluice.server.switchover.SwitchoverOutcome.Step("drain", 12),
                new dev.sluice.server.switchover.SwitchoverOutcome.Step("repoint", 340)), 420,
                List.of("'ro2' does not replicate from 'ro1': its SQL thread is stopped")));
        Run done = sluice("switchover", "--to", "ro1");
        assertThat(done.exit()).as(done.err()).isZero();
        assertThat(done.out()).isEqualTo("""
                switchover done: 'primary' -> 'ro1'; writes were held 420 ms
                STEP      MS
                drain     12
                repoint  340
                warning: 'ro2' does not replicate from 'ro1': its SQL thread is stopped
                """);
        assertThat(control.switchoverRequests()).containsExactly(java.util.Optional.empty(),
                java.util.Optional.of("ro1"));
    }

    @Test
    void failoverPrintsItsStepsAndTheOldPrimarysFateOrTheRefusal() {
        Run refused = sluice("failover");
        assertThat(refused.exit()).isEqualTo(AdminCommand.REFUSED);
        assertThat(refused.err()).isEqualTo("failover refused: the primary 'primary' is reachable: use switchover\n");

        control.answerFailover(new dev.sluice.server.switchover.SwitchoverOutcome("primary", "ro2", List.of(
                new dev.sluice.server.switchover.SwitchoverOutcome.Step("promote", 30)), 95, List.of()));
        Run done = sluice("failover", "--to", "ro2");
        assertThat(done.exit()).as(done.err()).isZero();
        assertThat(done.out()).isEqualTo("""
                failover done: 'primary' -> 'ro2'; writes were held 95 ms
                STEP     MS
                promote  30
                'primary' takes no traffic: when it is back Sluice makes it read-only, and rejoins it as a replica \
                only if it holds nothing the new primary lacks (describe-proxy shows it)
                """);
        assertThat(control.failoverRequests()).containsExactly(java.util.Optional.empty(),
                java.util.Optional.of("ro2"));
    }

    @Test
    void aMalformedSetIsAUsageError() {
        for (String bad : new String[] {"novalue", "=3", "weights=", "weights={primary: 0"}) {
            Run r = sluice("modify-endpoint", "rw", "--set", bad);
            assertThat(r.exit()).as(bad).isEqualTo(CommandLine.ExitCode.USAGE);
            assertThat(r.err()).as(bad).contains("--set");
        }
        Run twice = sluice("modify-endpoint", "rw", "--set", "consistency=session", "--set", "consistency=global");
        assertThat(twice.exit()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(twice.err()).contains("--set consistency is given twice");
        assertThat(policy("rw").consistency()).isEqualTo(ConsistencyLevel.EVENTUAL);
    }

    @Test
    void persistWritesTheFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("sluice.yaml");
        control.persistTo(file);
        Run r = sluice("modify-endpoint", "rw", "--set", "min-reserved-nodes=1", "--persist");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("endpoint 'rw' modified and saved to the configuration file\n");
        assertThat(control.persists()).isEqualTo(1);
        assertThat(Files.readString(file)).contains("min-reserved-nodes: 1");
    }

    @Test
    void nodesAreAddedDrainedAndRemoved() {
        Run added = sluice("add-node", "ro3", "--address", "127.0.0.1:3314", "--zone", "b", "--capacity", "2");
        assertThat(added.exit()).as(added.err()).isZero();
        assertThat(added.out()).startsWith("node 'ro3' added\n\nNAME  ROLE     STATE  RO   REPLICATION  LAG")
                .contains("\nro3   replica  up     yes  running       1s  0-1-1041");
        assertThat(control.config().node("ro3").orElseThrow().capacity()).isEqualTo(2);

        Run drained = sluice("drain-node", "ro1");
        assertThat(drained.exit()).as(drained.err()).isZero();
        assertThat(drained.out()).startsWith("node 'ro1' is draining: 7 session(s) on it now leave at their next "
                + "transaction boundary\n").contains("up,draining");

        Run removed = sluice("remove-node", "ro3");
        assertThat(removed.exit()).isZero();
        assertThat(removed.out()).isEqualTo("node 'ro3' removed\n");
        assertThat(control.config().node("ro3")).isEmpty();

        Run again = sluice("remove-node", "ro3");
        assertThat(again.exit()).isEqualTo(AdminCommand.REFUSED);
        assertThat(again.err()).isEqualTo("no node 'ro3'\n");
    }

    @Test
    void endpointsAreAddedFromAFileAndRemoved(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("reports.yaml");
        Files.writeString(file, """
                name: reports
                listen: 127.0.0.1:6035
                mode: read-only
                nodes: [ro2]
                max-replication-lag: 5s
                """);
        Run added = sluice("add-endpoint", "--file", file.toString());
        assertThat(added.exit()).as(added.err()).isZero();
        assertThat(added.out()).startsWith("endpoint 'reports' added\n").contains("max-replication-lag         5s\n");
        assertThat(policy("reports").nodes()).containsExactly("ro2");

        Run removed = sluice("remove-endpoint", "reports");
        assertThat(removed.exit()).isZero();
        assertThat(control.config().endpoints()).extracting(e -> e.name()).containsExactly("rw", "ro");

        Run missingFile = sluice("add-endpoint", "--file", dir.resolve("absent.yaml").toString());
        assertThat(missingFile.exit()).isEqualTo(CommandLine.ExitCode.USAGE);
    }

    @Test
    void theTokenIsSentWhenGiven() throws Exception {
        server.close();
        startServer(TOKEN);
        Run without = sluice("modify-endpoint", "rw", "--set", "consistency=global");
        assertThat(without.exit()).isEqualTo(AdminCommand.REFUSED);
        assertThat(without.err()).contains("admin token");
        assertThat(sluice("describe-proxy").exit()).isZero();

        Run with = sluice("modify-endpoint", "rw", "--set", "consistency=global", "--token", TOKEN);
        assertThat(with.exit()).as(with.err()).isZero();
        assertThat(policy("rw").consistency()).isEqualTo(ConsistencyLevel.GLOBAL);
    }

    @Test
    void anUnreachableAdminApiExits3WithTheAddress() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Run r = run("describe-proxy", "--admin", "127.0.0.1:" + port);
        assertThat(r.exit()).isEqualTo(AdminCommand.UNREACHABLE);
        assertThat(r.err()).startsWith("cannot reach the admin API at http://127.0.0.1:" + port);
    }

    @Test
    void everyAdminCommandIsRegistered() {
        Run r = run("--help");
        assertThat(r.out()).contains("describe-proxy", "describe-endpoint", "modify-endpoint", "add-endpoint",
                "remove-endpoint", "add-node", "remove-node", "drain-node", "run");
    }
}
