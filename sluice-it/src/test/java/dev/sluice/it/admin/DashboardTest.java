package dev.sluice.it.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SandboxNode;
import dev.sluice.it.support.SluiceHarness;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dashboard, driven in headless Chromium against a Sluice in front of the sandbox,
 * shows the live topology — every node with its role and its state as the monitor sees it — and
 * a screenshot of it is kept as a test artifact ({@code sluice-it/target/dashboard.png}).
 */
class DashboardTest {
    private static final Path SCREENSHOT = Path.of("target", "dashboard.png");
    private static final int SCREEN_WIDTH = 1280;
    private static final int SCREEN_HEIGHT = 900;
    private static final int STATEMENTS = 50;
    private static final Duration ALL_UP_TIMEOUT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    private static SluiceHarness sluice;

    @BeforeAll
    static void start() {
        assumeTrue(HeadlessChromium.isInstalled(), HeadlessChromium.BINARY
                + " is missing: install Debian's chromium package (./sluice test does) to run the dashboard test");
        sluice = SluiceHarness.readWrite(SandboxCluster.get(), "");
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (sluice != null) {
            sluice.close();
            assertThat(NettyLeaks.collect()).isEmpty();
        }
    }

    private static String adminUrl() {
        InetSocketAddress admin = sluice.adminAddress();
        return "http://127.0.0.1:" + admin.getPort() + "/";
    }

    private static JsonNode describeProxy() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(adminUrl()
                + "v1/proxy")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private static boolean everyNodeUp() throws Exception {
        JsonNode nodes = describeProxy().get("nodes");
        if (nodes.size() != sluice.cluster().nodes().size()) {
            return false;
        }
        for (JsonNode n : nodes) {
            if (!n.get("state").asText().equals("up")) {
                return false;
            }
        }
        return true;
    }

    @Test
    void theDashboardShowsTheLiveTopology() throws Exception {
        try (Connection c = sluice.connect("rw"); Statement s = c.createStatement()) {
            for (int i = 0; i < STATEMENTS; i++) {
                try (ResultSet rs = s.executeQuery("SELECT @@server_id")) {
                    assertThat(rs.next()).isTrue();
                }
            }
        }
        await().atMost(ALL_UP_TIMEOUT).pollInterval(Duration.ofMillis(200)).until(DashboardTest::everyNodeUp);

        HeadlessChromium chromium = new HeadlessChromium(Path.of("target"));
        String dom = chromium.dumpDom(adminUrl());

        assertThat(dom).contains("class=\"status status-ok\"").contains("data-endpoint=\"rw\"");
        int start = dom.indexOf("<table id=\"nodes\">");
        assertThat(start).as("the topology table is in the page:\n" + dom).isNotNegative();
        String topology = dom.substring(start, dom.indexOf("</table>", start));
        for (SandboxNode n : sluice.cluster().nodes()) {
            Matcher row = Pattern.compile("<tr data-node=\"" + Pattern.quote(n.name()) + "\">(.*?)</tr>",
                    Pattern.DOTALL).matcher(topology);
            assertThat(row.find()).as("a row for node %s in:%n%s", n.name(), topology).isTrue();
            String role = n.isPrimary() ? "primary" : "replica";
            assertThat(row.group(1)).as(n.name())
                    .contains("<span class=\"badge role-" + role + "\">" + role + "</span>")
                    .contains("<span class=\"badge state-up\">up</span>")
                    .contains("<td class=\"readonly\">" + (n.isPrimary() ? "OFF" : "ON") + "</td>");
        }

        chromium.screenshot(adminUrl(), SCREENSHOT, SCREEN_WIDTH, SCREEN_HEIGHT);
        assertThat(SCREENSHOT).isNotEmptyFile();
    }
}
