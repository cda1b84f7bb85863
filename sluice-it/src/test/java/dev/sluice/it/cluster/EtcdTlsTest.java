package dev.sluice.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.support.AdminClient;
import dev.sluice.it.support.EtcdServer;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import dev.sluice.server.config.ConfigException;
import dev.sluice.server.config.ConfigWriter;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.auth.Permission;
import io.grpc.netty.GrpcSslContexts;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Cluster mode toward an etcd that serves TLS only, requires client certificates and has its own
 * authentication enabled (BEHAVIOUR §11), started once by scripts/etcd.sh {@code --tls DIR
 * --client-cert-auth}: an instance configured with the CA, its client certificate and a user whose
 * password is in a file seeds and runs the shared configuration; a wrong CA, a missing client
 * certificate and a wrong password each stop the start at once, saying what to check.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EtcdTlsTest {
    /** As the other cluster tests: derived from the sandbox's port, one class at a time. */
    private static final int ETCD_PORT = Integer.getInteger("sluice.etcd.port",
            20_000 + (SandboxCluster.BASE_PORT - 3_000) * 2);
    private static final String PREFIX = "/sluice-it/etcd-tls";
    private static final String USER = "sluice-it";
    private static final String PASSWORD = "etcd-pw-7c1e";
    private static final String ROOT_PASSWORD = "root-pw-90ab";
    private static final Duration CALL = Duration.ofSeconds(20);
    private static final Duration SETTLE = Duration.ofSeconds(20);
    /**
     * A refusal is told at once, not after the 15 s an instance waits for an unreachable etcd at
     * start (EtcdStore.FIRST_CALL_TIMEOUT): the bound sits below that, with a loaded machine's margin.
     */
    private static final Duration REFUSED_WITHIN = Duration.ofSeconds(12);

    private static EtcdServer etcd;
    private static SandboxCluster sandbox;
    private static Path dir;
    private static final List<SluiceHarness> instances = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        etcd = EtcdServer.startWithClientCertificates(ETCD_PORT);
        sandbox = SandboxCluster.get();
        dir = Files.createDirectories(Path.of("target", "etcd-tls").toAbsolutePath());
        Path certs = Files.createDirectories(dir.resolve("certs"));
        for (String f : List.of("ca.pem", "client.pem", "client-key.pem")) {
            Files.copy(etcd.tlsDir().resolve(f), certs.resolve(f), StandardCopyOption.REPLACE_EXISTING);
        }
        Files.writeString(dir.resolve("etcd-password"), PASSWORD + "\n");
        Files.writeString(dir.resolve("wrong-password"), "not-" + PASSWORD + "\n");
        enableAuthentication();
    }

    /** etcd's authentication needs a root user first; the instances' user may use only its prefix. */
    private static void enableAuthentication() throws Exception {
        try (Client admin = client(false)) {
            var auth = admin.getAuthClient();
            auth.userAdd(bytes("root"), bytes(ROOT_PASSWORD)).get(CALL.toSeconds(), TimeUnit.SECONDS);
            auth.userGrantRole(bytes("root"), bytes("root")).get(CALL.toSeconds(), TimeUnit.SECONDS);
            auth.roleAdd(bytes("sluice")).get(CALL.toSeconds(), TimeUnit.SECONDS);
            // [PREFIX/, PREFIX0): every key under the prefix ('0' follows '/').
            auth.roleGrantPermission(bytes("sluice"), bytes(PREFIX + "/"), bytes(PREFIX + "0"),
                    Permission.Type.READWRITE).get(CALL.toSeconds(), TimeUnit.SECONDS);
            auth.userAdd(bytes(USER), bytes(PASSWORD)).get(CALL.toSeconds(), TimeUnit.SECONDS);
            auth.userGrantRole(bytes(USER), bytes("sluice")).get(CALL.toSeconds(), TimeUnit.SECONDS);
            auth.authEnable().get(CALL.toSeconds(), TimeUnit.SECONDS);
        }
    }

    /** A client of the test's own, over TLS with the client certificate; as root once authentication is on. */
    private static Client client(boolean asRoot) throws Exception {
        var b = Client.builder().endpoints(etcd.url()).sslContext(GrpcSslContexts.forClient()
                .trustManager(etcd.tlsDir().resolve("ca.pem").toFile())
                .keyManager(etcd.tlsDir().resolve("client.pem").toFile(),
                        etcd.tlsDir().resolve("client-key.pem").toFile()).build());
        return asRoot ? b.user(bytes("root")).password(bytes(ROOT_PASSWORD)).build() : b.build();
    }

    /** An instance from a file in {@link #dir}, whose cluster section ends with {@code access}. */
    private static SluiceHarness instance(String name, String access) throws Exception {
        Path file = dir.resolve(name + ".yaml");
        Files.writeString(file, SluiceHarness.nodesYaml(sandbox, "", sandbox.nodes().subList(0, 2))
                + "endpoints:\n  - {name: rw, listen: 127.0.0.1:0}\n"
                + "cluster:\n  etcd: [" + etcd.url() + "]\n  name: " + name + "\n  prefix: " + PREFIX + "\n" + access);
        return SluiceHarness.fromFile(sandbox, file);
    }

    @AfterAll
    static void stop() {
        instances.forEach(SluiceHarness::close);
        if (etcd != null) {
            etcd.close();
        }
    }

    @Test
    @Order(1)
    void anInstanceWithTheCaItsCertificateAndALoginSeedsAndServes() throws Exception {
        // Relative names, from the configuration file's directory.
        instances.add(instance("a", """
                  tls: {ca: certs/ca.pem, cert: certs/client.pem, key: certs/client-key.pem}
                  user: %s
                  password-file: etcd-password
                """.formatted(USER)));
        SluiceHarness a = instances.get(0);
        try (Client root = client(true)) {
            List<KeyValue> kvs = root.getKVClient().get(bytes(PREFIX + "/config")).get(CALL.toSeconds(),
                    TimeUnit.SECONDS).getKvs();
            assertThat(kvs).as("seeded through TLS with the login").hasSize(1);
            assertThat(kvs.get(0).getVersion()).isEqualTo(1);
        }
        List<Long> configured = sandbox.nodes().subList(0, 2).stream().map(sandbox::serverIdOf).toList();
        try (Connection c = a.connect("rw"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@server_id")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).isIn(configured);
        }
        AdminClient admin = new AdminClient(a.adminAddress(), "", CALL);
        AdminClient.Reply change = admin.patch("/v1/endpoints/rw", "{\"consistency-timeout\": \"66ms\"}");
        assertThat(change.status()).as(change.body()).isEqualTo(200);
        try (Client root = client(true)) {
            KeyValue kv = root.getKVClient().get(bytes(PREFIX + "/config")).get(CALL.toSeconds(), TimeUnit.SECONDS)
                    .getKvs().get(0);
            assertThat(kv.getVersion()).as("the change was written to etcd").isEqualTo(2);
            assertThat(kv.getValue().toString(StandardCharsets.UTF_8)).contains("66ms");
        }
        await().atMost(SETTLE).untilAsserted(() -> {
            JsonNode listed = admin.get("/v1/proxy").json().get("instances");
            assertThat(listed).as("registered under its lease").isNotNull().hasSize(1);
            assertThat(listed.get(0).get("name").asText()).isEqualTo("a");
        });
        String written = ConfigWriter.toYaml(a.server().runtime().config());
        assertThat(written).contains("password-file: etcd-password", "user: " + USER, "ca: certs/ca.pem")
                .doesNotContain(PASSWORD);
        assertThat(admin.get("/v1/proxy").body()).doesNotContain(PASSWORD);
    }

    @Test
    @Order(2)
    void aCaThatDidNotSignEtcdsCertificateStopsTheStart() throws Exception {
        Path stranger = etcd.strangerCa(dir);
        refusedAtStart("b", """
                  tls: {ca: %s, cert: certs/client.pem, key: certs/client-key.pem}
                  user: %s
                  password-file: etcd-password
                """.formatted(stranger, USER), "etcd's certificate at " + etcd.url()
                + " is not signed by cluster.tls.ca (" + stranger + ")");
    }

    @Test
    @Order(3)
    void noClientCertificateStopsTheStart() throws Exception {
        refusedAtStart("c", """
                  tls: {ca: certs/ca.pem}
                  user: %s
                  password-file: etcd-password
                """.formatted(USER), "requires a client certificate (--client-cert-auth): give cluster.tls.cert "
                + "and cluster.tls.key");
    }

    @Test
    @Order(4)
    void aWrongPasswordStopsTheStart() throws Exception {
        refusedAtStart("d", """
                  tls: {ca: certs/ca.pem, cert: certs/client.pem, key: certs/client-key.pem}
                  user: %s
                  password-file: wrong-password
                """.formatted(USER), "etcd refused the user '" + USER + "' or its password (etcd: "
                + "etcdserver: authentication failed, invalid user ID or password); check cluster.user and "
                + "cluster.password");
    }

    private static void refusedAtStart(String name, String access, String message) {
        long started = System.nanoTime();
        // Closed at once should it start after all, so that a failure here leaves nothing running.
        assertThatThrownBy(() -> instance(name, access).close()).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("cluster: ").hasMessageContaining(message)
                .hasMessageNotContaining(PASSWORD);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(REFUSED_WITHIN);
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }
}
