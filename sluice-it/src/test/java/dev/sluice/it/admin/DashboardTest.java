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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard, driven in headless Chromium against a Sluice in front of the sandbox, shows the
 * live topology — every node with its role and its state as the monitor sees it — and, after a
 * minute of sysbench ({@code oltp_read_only}, server-side prepared statements) and of clients that
 * connect and leave (so that the session pool lends and takes back), every chart of the last
 * minutes drawn with data; a screenshot of it is kept as a test artifact
 * ({@code sluice-it/target/dashboard.png}).
 */
class DashboardTest {
    private static final Path SCREENSHOT = Path.of("target", "dashboard.png");
    private static final int SCREEN_WIDTH = 1280;
    /** Tall enough for the charts and the topology below them. */
    private static final int SCREEN_HEIGHT = 1800;
    private static final int STATEMENTS = 50;
    private static final Duration ALL_UP_TIMEOUT = Duration.ofSeconds(30);
    /** How long the load runs before the charts are read: what an operator would watch. */
    private static final Duration LOAD_TIME = Duration.ofMinutes(1);
    /** After that minute, the history's next samples, on a loaded machine. */
    private static final Duration HISTORY_TIMEOUT = LOAD_TIME.plusSeconds(40);
    private static final int SYSBENCH_THREADS = 4;
    private static final int MIN_SAMPLES = 3;
    /** Clients of the load: enough to spread reads over the replicas and keep pooled connections busy. */
    private static final int LOAD_CLIENTS = 3;
    private static final List<String> CHARTS = List.of("statements", "latency-p99", "replication-lag", "sessions",
            "pool", "consistency-waits");
    private static final ObjectMapper JSON = new ObjectMapper();

    private static SluiceHarness sluice;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(HeadlessChromium.isInstalled(), HeadlessChromium.BINARY
                + " is missing: install Debian's chromium package (./sluice test does) to run the dashboard test");
        SysbenchLoad.prepare(SandboxCluster.get(), dir);
        // A session pool, so that the pool chart has lines to draw.
        sluice = SluiceHarness.readWrite(SandboxCluster.get(), "connection-pool: session");
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (sluice != null) {
            sluice.close();
            assertThat(NettyLeaks.collect()).isEmpty();
        }
        SysbenchLoad.cleanup(SandboxCluster.get());
    }

    private static String adminUrl() {
        InetSocketAddress admin = sluice.adminAddress();
        return "http://127.0.0.1:" + admin.getPort() + "/";
    }

    private static JsonNode get(String path) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(adminUrl()
                + path)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private static JsonNode describeProxy() throws Exception {
        return get("v1/proxy");
    }

    /**
     * Enough history for every chart: a few samples, and in each chart lines that each hold a
     * value, the statement rate above zero somewhere.
     */
    private static boolean historyHasEveryChart() throws Exception {
        JsonNode h = get("v1/history");
        if (h.get("times").size() < MIN_SAMPLES) {
            return false;
        }
        for (JsonNode chart : h.get("charts")) {
            if (chart.get("series").isEmpty()) {
                return false;
            }
            for (JsonNode series : chart.get("series")) {
                if (values(series).isEmpty()) {
                    return false;
                }
            }
        }
        return h.get("charts").get(0).get("series").findValues("values").stream()
                .anyMatch(v -> values(v).stream().anyMatch(x -> x > 0));
    }

    private static List<Double> values(JsonNode seriesOrValues) {
        JsonNode values = seriesOrValues.has("values") ? seriesOrValues.get("values") : seriesOrValues;
        List<Double> out = new ArrayList<>();
        values.forEach(v -> {
            if (!v.isNull()) {
                out.add(v.asDouble());
            }
        });
        return out;
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
    }

    @Test
    void afterAMinuteOfSysbenchEveryChartIsDrawnWithData() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService clients = Executors.newFixedThreadPool(LOAD_CLIENTS);
        List<Future<Long>> load = new ArrayList<>();
        try (SysbenchLoad sysbench = SysbenchLoad.start(sluice.port("rw"), SYSBENCH_THREADS, dir)) {
            for (int i = 0; i < LOAD_CLIENTS; i++) {
                load.add(clients.submit(() -> readUntil(stop)));
            }
            // The minute is the load asked for, not a wait for something to happen: the charts are
            // read after it, once the history holds it.
            await().pollDelay(LOAD_TIME).atMost(HISTORY_TIMEOUT).pollInterval(Duration.ofSeconds(1))
                    .until(DashboardTest::historyHasEveryChart);
            stop.set(true);
            assertThat(sysbench.assertCleanRun()).as("sysbench reads").isPositive();
        } finally {
            stop.set(true);
            clients.shutdown();
        }
        for (Future<Long> f : load) {
            assertThat(f.get(30, TimeUnit.SECONDS)).as("statements a client ran").isPositive();
        }

        HeadlessChromium chromium = new HeadlessChromium(Path.of("target"));
        String dom = chromium.dumpDom(adminUrl());
        for (String chart : CHARTS) {
            Matcher figure = Pattern.compile("<figure [^>]*data-chart=\"" + chart + "\"[^>]*>(.*?)</figure>",
                    Pattern.DOTALL).matcher(dom);
            assertThat(figure.find()).as("a chart %s in:%n%s", chart, dom).isTrue();
            String tag = figure.group().substring(0, figure.group().indexOf('>') + 1);
            Matcher points = Pattern.compile("data-points=\"([0-9,]+)\"").matcher(tag);
            assertThat(points.find()).as("%s says what it drew: %s", chart, tag).isTrue();
            assertThat(points.group(1).split(",")).as("non-null points per line of %s", chart)
                    .allSatisfy(n -> assertThat(Integer.parseInt(n)).isPositive());
            assertThat(figure.group(1)).as("%s is drawn", chart).contains("<canvas");
        }

        chromium.screenshot(adminUrl(), SCREENSHOT, SCREEN_WIDTH, SCREEN_HEIGHT);
        assertThat(SCREENSHOT).isNotEmptyFile();
    }

    /** Reads through the rw endpoint, a new connection now and then so that the pool lends and takes back. */
    private static long readUntil(AtomicBoolean stop) throws Exception {
        long statements = 0;
        while (!stop.get()) {
            try (Connection c = sluice.connect("rw"); Statement s = c.createStatement()) {
                for (int i = 0; i < STATEMENTS && !stop.get(); i++) {
                    try (ResultSet rs = s.executeQuery("SELECT @@server_id")) {
                        assertThat(rs.next()).isTrue();
                    }
                    statements++;
                }
            }
        }
        return statements;
    }
}
