package dev.sluice.it.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.it.support.AdminClient;
import dev.sluice.it.support.Bystander;
import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import dev.sluice.protocol.response.ErrorCodes;
import java.io.DataInputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §8–§9: each endpoint's client allow-list (CIDR, IPv4 and IPv6), changed live.
 * A client outside it gets a MySQL error naming its address right after connect — before any
 * greeting, so it never gets to try a password — while sessions already open go on untouched; a
 * change applies from the next connection. Only loopback addresses are used: 127.0.0.1 and
 * 127.0.0.2 (clients bind their source address), and ::1.
 */
class AllowListTest {
    private static final int READ_TIMEOUT_MS = 10_000;
    private static final String ONLY_127_0_0_1 = "{\"allow\": [\"127.0.0.1/32\"]}";

    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static AdminClient admin;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        sluice = SluiceHarness.start(cluster, """
                endpoints:
                  - name: v4
                    listen: 127.0.0.1:0
                    mode: read-write
                    allow: [127.0.0.1/32]
                  - name: v6
                    listen: "[::1]:0"
                    mode: read-write
                    allow: ["::1/128"]
                """);
        admin = new AdminClient(sluice.adminAddress());
    }

    @AfterEach
    void restore() {
        admin.ok(admin.patch("/v1/endpoints/v4", ONLY_127_0_0_1));
        admin.ok(admin.patch("/v1/endpoints/v6", "{\"allow\": [\"::1/128\"]}"));
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (sluice != null) {
            sluice.close();
            assertThat(NettyLeaks.collect()).isEmpty();
        }
    }

    @Test
    void aClientOutsideTheListGetsAnErrorNamingItsAddressBeforeAnyGreeting() throws Exception {
        try (Connection c = connectFrom("127.0.0.1")) {
            assertThat(AdminApiTest.serverId(c)).isPositive();
        }
        assertRefused("127.0.0.2");

        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress("127.0.0.2", 0));
            s.connect(sluice.address("v4"));
            s.setSoTimeout(READ_TIMEOUT_MS);
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] header = in.readNBytes(4);
            int length = (header[0] & 0xff) | (header[1] & 0xff) << 8 | (header[2] & 0xff) << 16;
            byte[] payload = in.readNBytes(length);
            assertThat(payload[0] & 0xff).as("the first packet is an ERR packet, not a greeting").isEqualTo(0xff);
            assertThat((payload[1] & 0xff) | (payload[2] & 0xff) << 8).isEqualTo(ErrorCodes.ER_HOST_NOT_PRIVILEGED);
            assertThat(new String(payload, 3, payload.length - 3, StandardCharsets.UTF_8))
                    .contains("127.0.0.2", "not allowed");
            assertThat(in.read()).as("then the connection is closed").isEqualTo(-1);
        }
    }

    @Test
    void aLiveChangeAppliesToTheNextConnectionAndLeavesOpenSessionsAlone() throws Exception {
        admin.ok(admin.patch("/v1/endpoints/v4", "{\"allow\": [\"127.0.0.0/8\"]}"));
        try (Connection fromTwo = connectFrom("127.0.0.2");
                Bystander fromOne = Bystander.start(url("127.0.0.1", sluice.port("v4"), "127.0.0.1"))) {
            assertThat(AdminApiTest.serverId(fromTwo)).isPositive();

            admin.ok(admin.patch("/v1/endpoints/v4", ONLY_127_0_0_1));
            assertRefused("127.0.0.2");
            assertThat(AdminApiTest.serverId(fromTwo)).as("a session open before the change goes on").isPositive();
            fromOne.assertProgressing();

            admin.ok(admin.patch("/v1/endpoints/v4", "{\"allow\": [\"127.0.0.2/32\"]}"));
            try (Connection again = connectFrom("127.0.0.2")) {
                assertThat(AdminApiTest.serverId(again)).isPositive();
            }
            assertRefused("127.0.0.1");
            fromOne.assertProgressing();
            assertThat(AdminApiTest.serverId(fromTwo)).isPositive();
        }
    }

    @Test
    void anIpv6ListRefusesAndAdmitsLive() throws Exception {
        int port = sluice.port("v6");
        try (Connection c = DriverManager.getConnection(url("[::1]", port, "::1"))) {
            assertThat(AdminApiTest.serverId(c)).isPositive();

            admin.ok(admin.patch("/v1/endpoints/v6", "{\"allow\": [\"fd00::/8\", \"127.0.0.0/8\"]}"));
            assertThatThrownBy(() -> DriverManager.getConnection(url("[::1]", port, "::1")).close())
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getErrorCode()).isEqualTo(ErrorCodes.ER_HOST_NOT_PRIVILEGED);
                        assertThat(e.getMessage()).contains("not allowed", "'v6'");
                        assertThat(hostIn(e.getMessage())).as("as the server writes it").isEqualTo("::1");
                    });
            assertThat(AdminApiTest.serverId(c)).as("the open IPv6 session goes on").isPositive();

            admin.ok(admin.patch("/v1/endpoints/v6", "{\"allow\": [\"::/0\"]}"));
            try (Connection again = DriverManager.getConnection(url("[::1]", port, "::1"))) {
                assertThat(AdminApiTest.serverId(again)).isPositive();
            }
        }
    }

    private static void assertRefused(String source) {
        assertThatThrownBy(() -> connectFrom(source).close()).as("a connection from " + source)
                .isInstanceOfSatisfying(SQLException.class, e -> {
                    assertThat(e.getErrorCode()).as(e.getMessage()).isEqualTo(ErrorCodes.ER_HOST_NOT_PRIVILEGED);
                    assertThat(e.getMessage()).contains("'" + source + "'", "not allowed", "'v4'");
                });
    }

    /** The address between the first quotes of the refusal, {@code Host '…' is not allowed …}. */
    private static String hostIn(String message) {
        int start = message.indexOf("Host '") + "Host '".length();
        return message.substring(start, message.indexOf('\'', start));
    }

    private static Connection connectFrom(String source) throws SQLException {
        return DriverManager.getConnection(url("127.0.0.1", sluice.port("v4"), source));
    }

    /** MariaDB Connector/J from a chosen loopback source address. */
    private static String url(String host, int port, String source) {
        return "jdbc:mariadb://" + host + ":" + port + "/test?user=" + SandboxCluster.APP_USER + "&password="
                + SandboxCluster.APP_PASSWORD + "&localSocketAddress=" + source + "&connectTimeout=5000";
    }
}
