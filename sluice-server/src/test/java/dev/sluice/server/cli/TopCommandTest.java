package dev.sluice.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.admin.AdminServer;
import dev.sluice.server.admin.FakeProxyControl;
import dev.sluice.server.config.AdminConfig;
import dev.sluice.server.digest.DigestEntry;
import dev.sluice.server.digest.LoopDigests;
import dev.sluice.server.history.RecentHistory;
import dev.sluice.server.metrics.SluiceMetrics;
import dev.sluice.server.net.HostPort;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** BEHAVIOUR §12: {@code GET|DELETE /v1/digests} and {@code sluice top --once} over a real admin server. */
class TopCommandTest {
    private static final String TOKEN = "top-token";
    private static final long MS = 1_000_000;

    private final FakeProxyControl control = new FakeProxyControl();
    private final SluiceMetrics metrics = new SluiceMetrics();
    private AdminServer server;
    private String admin;

    @BeforeEach
    void start() throws InterruptedException {
        LoopDigests d = control.digests().forLoop(ImmediateEventExecutor.INSTANCE);
        for (int id = 0; id < 3; id++) {
            DigestEntry e = d.find(d.digester().digest("SELECT c FROM t WHERE id = " + id), "rw", "app", "test");
            d.record(e, MS, false, 1, false, 1_000);
        }
        DigestEntry update = d.find(d.digester().digest("UPDATE t SET c = 1 WHERE id IN (1, 2)"), "rw", "app", "test");
        d.record(update, 10 * MS, true, 0, true, 1_000);
        server = new AdminServer(new AdminConfig(new HostPort("127.0.0.1", 0), TOKEN), control, metrics,
                new RecentHistory());
        admin = "http://127.0.0.1:" + server.start().getPort();
    }

    @AfterEach
    void stop() {
        server.close();
        metrics.close();
    }

    @Test
    void printsTheDigestsOnceMostCostlyFirst() {
        String[] lines = sluice("top", "--once").split("\n");
        assertThat(lines[0]).startsWith("COUNT").contains("P99_MS", "PRIMARY", "REPLICAS", "DIGEST");
        assertThat(lines[1]).contains("UPDATE t SET c = ? WHERE id IN (...)").contains("10.000");
        assertThat(lines[1].trim().split("\\s+")).startsWith("1", "1", "10.000", "10.000");
        assertThat(lines[2]).contains("SELECT c FROM t WHERE id = ?");
        assertThat(lines[2].trim().split("\\s+")).startsWith("3", "0", "3.000", "1.000");
        assertThat(lines).hasSize(3);
    }

    @Test
    void withoutOnceItRedrawsTheTableUntilStopped() throws Exception {
        StringWriter out = new StringWriter();
        Thread top = new Thread(() -> new CommandLine(new SluiceMain()).setOut(new PrintWriter(out))
                .setErr(new PrintWriter(new StringWriter()))
                .execute("top", "--interval", "0.1", "--order", "count", "--admin", admin));
        top.start();
        try {
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
            while (out.toString().split("\033\\[H\033\\[2J", -1).length < 3 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
        } finally {
            top.interrupt();
            top.join(10_000);
        }
        assertThat(top.isAlive()).isFalse();
        String[] screens = out.toString().split("\033\\[H\033\\[2J");
        assertThat(screens[1]).startsWith("sluice top — ").contains("by count", "Ctrl-C quits",
                "SELECT c FROM t WHERE id = ?");
    }

    @Test
    void ordersByCountAndLimits() {
        String[] lines = sluice("top", "--once", "--order", "count", "--limit", "1").split("\n");
        assertThat(lines).hasSize(2);
        assertThat(lines[1]).contains("SELECT c FROM t WHERE id = ?");
    }

    @Test
    void aBadOrderOrEndpointIsRefusedWithTheReason() {
        StringWriter err = new StringWriter();
        int exit = new CommandLine(new SluiceMain()).setOut(new PrintWriter(new StringWriter()))
                .setErr(new PrintWriter(err)).execute("top", "--once", "--order", "slowest", "--admin", admin);
        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).contains("order: 'slowest' must be total, count or p99");
        assertThat(get("/v1/digests?endpoint=nope").statusCode()).isEqualTo(404);
        assertThat(get("/v1/digests?limit=0").statusCode()).isEqualTo(400);
    }

    @Test
    void withDigestsOffTheApiAndTopSaySoAndHowToTurnThemOn() {
        FakeProxyControl off = new FakeProxyControl(FakeProxyControl.CONFIG + "query-digests: false\n");
        try (AdminServer offServer = new AdminServer(new AdminConfig(new HostPort("127.0.0.1", 0), TOKEN), off,
                metrics, new RecentHistory())) {
            String offAdmin = "http://127.0.0.1:" + offServer.start().getPort();
            HttpResponse<String> refused = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(offAdmin + "/v1/digests")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).isEqualTo(409);
            assertThat(refused.body()).contains("query digests are off", "query-digests: false", "restart");
            StringWriter err = new StringWriter();
            int exit = new CommandLine(new SluiceMain()).setOut(new PrintWriter(new StringWriter()))
                    .setErr(new PrintWriter(err)).execute("top", "--once", "--admin", offAdmin);
            assertThat(exit).isEqualTo(1);
            assertThat(err.toString()).contains("query digests are off");
        } catch (java.io.IOException | InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void deletingTheDigestsNeedsTheTokenAndForgetsThem() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest.Builder delete = HttpRequest.newBuilder(URI.create(admin + "/v1/digests")).DELETE();
        assertThat(http.send(delete.build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
        assertThat(get("/v1/digests").body()).contains("SELECT c FROM t WHERE id = ?");
        assertThat(http.send(delete.header("Authorization", "Bearer " + TOKEN).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(204);
        assertThat(get("/v1/digests").body()).doesNotContain("SELECT");
        assertThat(sluice("top", "--once")).contains("no statements counted yet");
    }

    private HttpResponse<String> get(String path) {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(admin + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private String sluice(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        String[] all = List.of(List.of(args), List.of("--admin", admin)).stream().flatMap(List::stream)
                .toArray(String[]::new);
        int exit = new CommandLine(new SluiceMain()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute(all);
        assertThat(exit).as(err.toString()).isZero();
        return out.toString();
    }
}
