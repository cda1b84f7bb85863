package dev.sluice.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.routing.policy.ConsistencyLevel;
import dev.sluice.routing.policy.ReadWeights;
import dev.sluice.server.config.AdminConfig;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.EndpointConfig;
import dev.sluice.server.history.RecentHistory;
import dev.sluice.server.net.HostPort;
import dev.sluice.server.config.SluiceConfig;
import dev.sluice.server.metrics.SluiceMetrics;
import java.io.IOException;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every route of the admin API against {@link FakeProxyControl}, plus the token rule and bad input. */
class AdminServerTest {
    static {
        NettyLeakRecorder.install();
    }

    private static final String TOKEN = "s3cret-token";

    private FakeProxyControl control;
    private SluiceMetrics metrics;
    private AdminServer server;
    private AdminHttp http;

    @BeforeEach
    void start() throws InterruptedException {
        control = new FakeProxyControl();
        control.load("ro1", "rw", new FakeProxyControl.Load(3, 1, 120));
        metrics = new SluiceMetrics();
        metrics.registerGauges(control::describe);
        server = new AdminServer(new AdminConfig(new HostPort("127.0.0.1", 0), ""), control, metrics,
                new RecentHistory());
        http = new AdminHttp(server.start());
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

    private static JsonNode json(HttpResponse<String> r) throws IOException {
        return AdminJson.MAPPER.readTree(r.body());
    }

    private static String error(HttpResponse<String> r) throws IOException {
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json; charset=utf-8");
        return json(r).get("error").asText();
    }

    private EndpointConfig endpoint(String name) {
        return control.config().endpoints().stream().filter(e -> e.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void describeProxyListsEndpointsAndNodesWithTheirLoad() throws Exception {
        HttpResponse<String> r = http.get("/v1/proxy");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json; charset=utf-8");
        assertThat(r.headers().firstValue("Cache-Control")).hasValue("no-store");
        JsonNode d = json(r);
        assertThat(d.get("version").asText()).isEqualTo("0.1.0-test");
        assertThat(d.get("endpoints").findValuesAsText("name")).containsExactly("rw", "ro");
        JsonNode ro1 = d.get("nodes").get(1);
        assertThat(ro1.get("name").asText()).isEqualTo("ro1");
        assertThat(ro1.get("role").asText()).isEqualTo("replica");
        assertThat(ro1.get("lagSeconds").asLong()).isEqualTo(1);
        assertThat(ro1.at("/endpoints/rw/activeSessions").asInt()).isEqualTo(3);
        assertThat(ro1.at("/endpoints/rw/statements").asLong()).isEqualTo(120);
        assertThat(d.get("nodes").get(0).get("lagSeconds").isNull()).isTrue();
    }

    @Test
    void describeEndpointShowsTheSettingsInConfigurationForm() throws Exception {
        HttpResponse<String> r = http.get("/v1/endpoints/rw");
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode s = json(r);
        assertThat(s.get("consistency-timeout").asText()).isEqualTo("10ms");
        assertThat(s.get("weights").asText()).isEqualTo("auto");

        HttpResponse<String> missing = http.get("/v1/endpoints/nope");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(error(missing)).isEqualTo("no endpoint 'nope'; endpoints: rw, ro");
    }

    @Test
    void modifyEndpointAppliesEverySettingGiven() throws Exception {
        HttpResponse<String> r = http.send("PATCH", "/v1/endpoints/rw",
                "{\"weights\": {\"primary\": 0, \"ro1\": 100, \"ro2\": 0}, \"consistency\": \"session\","
                        + " \"max-replication-lag\": \"2s\"}", null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(json(r).get("consistency").asText()).isEqualTo("session");
        assertThat(endpoint("rw").policy().weights())
                .isEqualTo(new ReadWeights.Custom(Map.of("primary", 0, "ro1", 100, "ro2", 0)));
        assertThat(endpoint("rw").policy().maxReplicationLag()).isEqualTo(Duration.ofSeconds(2));
        assertThat(json(http.get("/v1/proxy")).at("/nodes/2/endpoints/rw/weight").asInt()).isZero();
    }

    @Test
    void anInvalidChangeIs400WithTheProblemNamedAndChangesNothing() throws Exception {
        EndpointConfig before = endpoint("rw");
        HttpResponse<String> weight = http.send("PATCH", "/v1/endpoints/rw",
                "{\"consistency\": \"session\", \"weights\": {\"ro1\": 20000}}", null);
        assertThat(weight.statusCode()).isEqualTo(400);
        assertThat(error(weight)).contains("ro1").contains("0..10000");

        HttpResponse<String> unknownKey = http.send("PATCH", "/v1/endpoints/rw", "{\"wieghts\": \"auto\"}", null);
        assertThat(unknownKey.statusCode()).isEqualTo(400);
        assertThat(error(unknownKey)).contains("unknown key", "wieghts");

        HttpResponse<String> unknownNode = http.send("PATCH", "/v1/endpoints/rw", "{\"nodes\": [\"primary\", "
                + "\"ro9\"]}", null);
        assertThat(unknownNode.statusCode()).isEqualTo(400);
        assertThat(error(unknownNode)).contains("unknown node 'ro9'");

        assertThat(endpoint("rw")).isEqualTo(before);
    }

    @Test
    void aBodyThatIsNotAJsonObjectIs400() throws Exception {
        String[][] cases = {
            {"{\"weights\": ", "not valid JSON"},
            {"[1, 2]", "must be a JSON object"},
            {"", "needs a JSON body"},
            {"{\"consistency\": \"session\", \"consistency\": \"global\"}", "Duplicate field"},
            {"{\"consistency\": \"session\"} trailing", "not valid JSON"},
        };
        for (String[] c : cases) {
            HttpResponse<String> r = http.send("PATCH", "/v1/endpoints/rw", c[0], null);
            assertThat(r.statusCode()).as(c[0]).isEqualTo(400);
            assertThat(error(r)).as(c[0]).contains(c[1]);
        }
        assertThat(endpoint("rw").policy().consistency()).isEqualTo(ConsistencyLevel.EVENTUAL);
    }

    @Test
    void endpointsAreAddedAndRemoved() throws Exception {
        String reports = "{\"name\": \"reports\", \"listen\": \"127.0.0.1:6035\", \"mode\": \"read-only\", "
                + "\"nodes\": [\"ro2\"]}";
        HttpResponse<String> added = http.send("POST", "/v1/endpoints", reports, null);
        assertThat(added.statusCode()).as(added.body()).isEqualTo(201);
        assertThat(json(added).get("mode").asText()).isEqualTo("read-only");
        assertThat(json(http.get("/v1/proxy")).get("endpoints").findValuesAsText("name"))
                .containsExactly("rw", "ro", "reports");

        HttpResponse<String> again = http.send("POST", "/v1/endpoints", reports, null);
        assertThat(again.statusCode()).isEqualTo(409);
        assertThat(error(again)).isEqualTo("endpoint 'reports' exists already");

        HttpResponse<String> removed = http.send("DELETE", "/v1/endpoints/reports", null, null);
        assertThat(removed.statusCode()).isEqualTo(204);
        assertThat(removed.body()).isEmpty();
        assertThat(http.send("DELETE", "/v1/endpoints/reports", null, null).statusCode()).isEqualTo(404);
        assertThat(http.get("/v1/endpoints/reports").statusCode()).isEqualTo(404);
    }

    @Test
    void nodesAreAddedDescribedDrainedAndRemoved() throws Exception {
        HttpResponse<String> added = http.send("POST", "/v1/nodes",
                "{\"name\": \"ro3\", \"address\": \"127.0.0.1:3314\", \"role\": \"replica\", \"zone\": \"b\"}", null);
        assertThat(added.statusCode()).as(added.body()).isEqualTo(201);
        assertThat(json(added).get("zone").asText()).isEqualTo("b");

        HttpResponse<String> one = http.get("/v1/nodes/ro3");
        assertThat(one.statusCode()).isEqualTo(200);
        assertThat(json(one).get("address").asText()).isEqualTo("127.0.0.1:3314");

        HttpResponse<String> drained = http.send("POST", "/v1/nodes/ro1/drain", null, null);
        assertThat(drained.statusCode()).isEqualTo(200);
        assertThat(json(drained).get("draining").asBoolean()).isTrue();

        assertThat(http.send("DELETE", "/v1/nodes/ro3", null, null).statusCode()).isEqualTo(204);
        HttpResponse<String> gone = http.get("/v1/nodes/ro3");
        assertThat(gone.statusCode()).isEqualTo(404);
        assertThat(error(gone)).isEqualTo("no node 'ro3'; nodes: primary, ro1, ro2");
        assertThat(http.send("POST", "/v1/nodes/ro3/drain", null, null).statusCode()).isEqualTo(404);

        HttpResponse<String> primary = http.send("DELETE", "/v1/nodes/primary", null, null);
        assertThat(primary.statusCode()).isEqualTo(409);
        assertThat(error(primary)).isEqualTo("node 'primary' is the primary");

        HttpResponse<String> noAddress = http.send("POST", "/v1/nodes", "{\"name\": \"ro4\"}", null);
        assertThat(noAddress.statusCode()).isEqualTo(400);
    }

    @Test
    void persistTrueWritesTheChangedConfigurationBack(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("sluice.yaml");
        Files.writeString(file, FakeProxyControl.CONFIG);
        control.persistTo(file);

        HttpResponse<String> r = http.send("PATCH", "/v1/endpoints/rw?persist=true",
                "{\"transaction-splitting\": true}", null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(control.persists()).isEqualTo(1);
        SluiceConfig reread = ConfigLoader.parse(Files.readString(file));
        assertThat(reread.endpoints().get(0).policy().transactionSplitting()).isTrue();

        assertThat(http.send("PATCH", "/v1/endpoints/rw?persist=false", "{\"min-reserved-nodes\": 1}", null)
                .statusCode()).isEqualTo(200);
        assertThat(control.persists()).isEqualTo(1);
    }

    @Test
    void aBadPersistFlagRefusesTheChangeBeforeMakingIt() throws Exception {
        HttpResponse<String> r = http.send("PATCH", "/v1/endpoints/rw?persist=yes", "{\"consistency\": \"global\"}",
                null);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(error(r)).isEqualTo("persist: 'yes' must be true or false");
        assertThat(endpoint("rw").policy().consistency()).isEqualTo(ConsistencyLevel.EVENTUAL);
    }

    @Test
    void aFailedPersistSaysTheChangeIsAppliedButNotSaved() throws Exception {
        HttpResponse<String> r = http.send("POST", "/v1/nodes/ro2/drain?persist=true", null, null);
        assertThat(r.statusCode()).isEqualTo(409);
        assertThat(error(r)).isEqualTo("the change is applied but was not written to the configuration file: "
                + "Sluice was not started from a configuration file");
    }

    @Test
    void unknownPathsAre404AndWrongMethods405() throws Exception {
        for (String path : new String[] {"/v2/proxy", "/v1", "/v1/nothing", "/v1/nodes/ro1/undrain", "/favicon.ico",
            "/v1/endpoints/rw/extra"}) {
            HttpResponse<String> r = http.get(path);
            assertThat(r.statusCode()).as(path).isEqualTo(404);
            assertThat(error(r)).as(path).startsWith("no such path: ");
        }
        HttpResponse<String> put = http.send("PUT", "/v1/endpoints/rw", "{}", null);
        assertThat(put.statusCode()).isEqualTo(405);
        assertThat(put.headers().firstValue("Allow")).hasValue("GET, PATCH, DELETE");
        assertThat(error(put)).isEqualTo("PUT is not allowed on /v1/endpoints/rw; allowed: GET, PATCH, DELETE");

        HttpResponse<String> listNodes = http.get("/v1/nodes");
        assertThat(listNodes.statusCode()).isEqualTo(405);
        assertThat(listNodes.headers().firstValue("Allow")).hasValue("POST");
        assertThat(http.send("DELETE", "/v1/proxy", null, null).statusCode()).isEqualTo(405);
        assertThat(http.send("POST", "/metrics", "", null).statusCode()).isEqualTo(405);
    }

    @Test
    void namesArePercentDecodedAndBadEncodingIs400() throws Exception {
        assertThat(http.get("/v1/endpoints/r%77").statusCode()).isEqualTo(200);
        // java.net.URI refuses to send this, so it goes over a plain socket.
        String bad = raw("GET /v1/endpoints/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertThat(bad).startsWith("HTTP/1.1 400 Bad Request").contains("the request path cannot be decoded");
    }

    /** Sends {@code request} as it is and reads until the server closes. */
    private String raw(String request) throws IOException {
        try (Socket s = new Socket(server.address().getAddress(), server.address().getPort())) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void anUnexpectedFailureIs500AndTheServerCarriesOn() throws Exception {
        control.failDescribe(new IllegalStateException("boom"));
        HttpResponse<String> r = http.get("/v1/proxy");
        assertThat(r.statusCode()).isEqualTo(500);
        assertThat(error(r)).isEqualTo("internal error (see the Sluice log): java.lang.IllegalStateException: boom");
        // /metrics still answers: the gauges keep their last values.
        assertThat(http.get("/metrics").statusCode()).isEqualTo(200);
        control.failDescribe(null);
        assertThat(http.get("/v1/proxy").statusCode()).isEqualTo(200);
    }

    @Test
    void metricsAreThePrometheusTextFormat() throws Exception {
        metrics.statementRouted("rw", "ro1", "replica", "read");
        HttpResponse<String> r = http.get("/metrics");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
        assertThat(r.body()).contains("# TYPE sluice_statements_routed_total counter")
                .contains("sluice_node_sessions{endpoint=\"rw\",node=\"ro1\"} 3.0")
                .contains("sluice_node_up{node=\"primary\"} 1.0")
                .contains("jvm_memory_used_bytes");
    }

    @Test
    void theDashboardIsServedWithItsFiles() throws Exception {
        HttpResponse<String> page = http.get("/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
        assertThat(page.headers().firstValue("Content-Security-Policy")).hasValue("default-src 'self'");
        assertThat(page.body()).contains("<title>Sluice</title>", "dashboard.js", "dashboard.css")
                .doesNotContain("http://", "https://");
        HttpResponse<String> js = http.get("/dashboard.js");
        assertThat(js.statusCode()).isEqualTo(200);
        assertThat(js.headers().firstValue("Content-Type")).hasValue("text/javascript; charset=utf-8");
        assertThat(js.body()).contains("v1/proxy").doesNotContain("http://", "https://");
        assertThat(http.get("/dashboard.css").headers().firstValue("Content-Type"))
                .hasValue("text/css; charset=utf-8");
    }

    @Test
    void theChartingLibraryIsServedFromItsWebjar() throws Exception {
        HttpResponse<String> js = http.get("/uPlot.iife.min.js");
        assertThat(js.statusCode()).isEqualTo(200);
        assertThat(js.headers().firstValue("Content-Type")).hasValue("text/javascript; charset=utf-8");
        assertThat(js.body()).startsWith("/*! https://github.com/leeoniya/uPlot (v1.6.30) */").contains("uPlot");
        HttpResponse<String> css = http.get("/uPlot.min.css");
        assertThat(css.headers().firstValue("Content-Type")).hasValue("text/css; charset=utf-8");
        assertThat(css.body()).contains(".uplot");
        assertThat(http.get("/").body()).contains("uPlot.iife.min.js", "uPlot.min.css");
    }

    @Test
    void theHistoryListsEveryChartBeforeTheFirstSample() throws Exception {
        HttpResponse<String> r = http.get("/v1/history");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Cache-Control")).hasValue("no-store");
        JsonNode h = json(r);
        assertThat(h.get("stepSeconds").asLong()).isEqualTo(5);
        assertThat(h.get("spanSeconds").asLong()).isEqualTo(900);
        assertThat(h.get("times").size()).isZero();
        assertThat(h.get("charts").findValuesAsText("chart")).containsExactly("statements", "latency-p99",
                "replication-lag", "sessions", "pool", "consistency-waits");
        assertThat(http.send("POST", "/v1/history", "{}", null).statusCode()).isEqualTo(405);
    }

    @Test
    void aBodyOverTheLimitIsRefused() throws Exception {
        String huge = "{\"allow\": [\"" + "x".repeat(AdminServer.MAX_BODY_BYTES) + "\"]}";
        HttpResponse<String> r;
        try {
            r = http.send("PATCH", "/v1/endpoints/rw", huge, null);
        } catch (IOException e) {
            // The server may close while the client is still sending; what matters is that nothing changed.
            r = null;
        }
        if (r != null) {
            assertThat(r.statusCode()).isEqualTo(413);
        }
        assertThat(endpoint("rw").policy().allow()).containsExactly("127.0.0.0/8", "::1/128");
        assertThat(http.get("/v1/proxy").statusCode()).isEqualTo(200);
    }

    @Test
    void aMalformedRequestLineIs400AndTheServerCarriesOn() throws Exception {
        assertThat(raw("GET /v1/proxy HTTP/1.1\r\nHost: x\r\nContent-Length: zz\r\n\r\n"))
                .startsWith("HTTP/1.1 400 Bad Request").contains("malformed HTTP request");
        assertThat(raw("GARBAGE\r\n\r\n")).startsWith("HTTP/1.1 400 Bad Request");
        assertThat(http.get("/v1/proxy").statusCode()).isEqualTo(200);
    }

    @Test
    void switchoverAnswersWithItsOutcomeOrItsRefusal() throws Exception {
        HttpResponse<String> refused = http.send("POST", "/v1/switchover", "", null);
        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(error(refused)).isEqualTo("switchover refused: no replica can take over");

        control.answerSwitchover(new dev.sluice.server.switchover.SwitchoverOutcome("primary", "ro1",
                List.of(new dev.sluice.server.switchover.SwitchoverOutcome.Step("drain", 12)), 340, List.of()));
        HttpResponse<String> done = http.send("POST", "/v1/switchover", "{\"to\": \"ro1\"}", null);
        assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
        JsonNode o = json(done);
        assertThat(o.get("to").asText()).isEqualTo("ro1");
        assertThat(o.get("held-ms").asLong()).isEqualTo(340);
        assertThat(o.at("/steps/0/step").asText()).isEqualTo("drain");
        assertThat(control.switchoverRequests()).containsExactly(java.util.Optional.empty(),
                java.util.Optional.of("ro1"));

        HttpResponse<String> badTarget = http.send("POST", "/v1/switchover", "{\"to\": 5}", null);
        assertThat(badTarget.statusCode()).isEqualTo(400);
        assertThat(error(badTarget)).contains("to: the name of a node");
        HttpResponse<String> get = http.get("/v1/switchover");
        assertThat(get.statusCode()).isEqualTo(405);
        assertThat(get.headers().firstValue("Allow")).hasValue("POST");
    }

    @Test
    void withATokenEveryChangeNeedsIt() throws Exception {
        server.close();
        server = new AdminServer(new AdminConfig(new HostPort("127.0.0.1", 0), TOKEN), control, metrics,
                new RecentHistory());
        http = new AdminHttp(server.start());
        String change = "{\"consistency\": \"session\"}";

        HttpResponse<String> none = http.send("PATCH", "/v1/endpoints/rw", change, null);
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"sluice\"");
        assertThat(error(none)).contains("admin token");
        assertThat(http.send("PATCH", "/v1/endpoints/rw", change, "Bearer wrong").statusCode()).isEqualTo(401);
        assertThat(http.send("PATCH", "/v1/endpoints/rw", change, "Bearer " + TOKEN + "x").statusCode())
                .isEqualTo(401);
        assertThat(http.send("PATCH", "/v1/endpoints/rw", change, "Basic " + TOKEN).statusCode()).isEqualTo(401);
        assertThat(http.send("DELETE", "/v1/nodes/ro2", null, null).statusCode()).isEqualTo(401);
        assertThat(http.send("POST", "/v1/nodes/ro2/drain", null, null).statusCode()).isEqualTo(401);
        assertThat(http.send("POST", "/v1/endpoints", "{}", null).statusCode()).isEqualTo(401);
        assertThat(http.send("POST", "/v1/switchover", "{}", null).statusCode()).isEqualTo(401);
        assertThat(endpoint("rw").policy().consistency()).isEqualTo(ConsistencyLevel.EVENTUAL);
        assertThat(control.config().node("ro2")).isPresent();

        assertThat(http.get("/v1/proxy").statusCode()).isEqualTo(200);
        assertThat(http.get("/metrics").statusCode()).isEqualTo(200);
        assertThat(http.get("/").statusCode()).isEqualTo(200);
        assertThat(http.send("PATCH", "/v1/endpoints/rw", change, "Bearer " + TOKEN).statusCode()).isEqualTo(200);
        assertThat(http.send("PATCH", "/v1/endpoints/rw", "{\"consistency\": \"global\"}", "bearer " + TOKEN)
                .statusCode()).isEqualTo(200);
        assertThat(endpoint("rw").policy().consistency()).isEqualTo(ConsistencyLevel.GLOBAL);
    }

    @Test
    void aChangeFromAWebPageOfAnotherOriginIsRefused() throws Exception {
        String self = "http://127.0.0.1:" + server.address().getPort();
        for (String origin : new String[] {"http://evil.example", "null", "http://127.0.0.1:1"}) {
            HttpResponse<String> r = http.send("POST", "/v1/nodes/ro1/drain", "", null, Map.of("Origin", origin));
            assertThat(r.statusCode()).as(origin).isEqualTo(403);
            assertThat(error(r)).isEqualTo("a change sent by a web page of another origin (" + origin
                    + ") is refused; use the CLI or curl");
        }
        assertThat(control.describe().nodes().get(1).draining()).isFalse();
        // Reads stay open to any page (the dashboard), and a same-origin change goes through.
        assertThat(http.send("GET", "/v1/proxy", null, null, Map.of("Origin", "http://evil.example")).statusCode())
                .isEqualTo(200);
        assertThat(http.send("POST", "/v1/nodes/ro1/drain", "", null, Map.of("Origin", self)).statusCode())
                .isEqualTo(200);
    }

    @Test
    void aPortInUseFailsTheStartWithTheAddress() throws Exception {
        int taken = server.address().getPort();
        AdminServer second = new AdminServer(new AdminConfig(new HostPort("127.0.0.1", taken), ""), control, metrics,
                new RecentHistory());
        try {
            org.assertj.core.api.Assertions.assertThatThrownBy(second::start)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot listen for the admin API on 127.0.0.1:" + taken);
        } finally {
            second.close();
        }
    }
}
