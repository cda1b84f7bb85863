package dev.sluice.server.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.server.config.AdminConfig;
import dev.sluice.server.digest.DigestEntry;
import dev.sluice.server.digest.LoopDigests;
import dev.sluice.server.history.RecentHistory;
import dev.sluice.server.switchover.FailoverStatus;
import dev.sluice.server.switchover.SwitchoverOutcome;
import dev.sluice.server.switchover.SwitchoverStatus;
import io.netty.util.concurrent.ImmediateEventExecutor;
import dev.sluice.server.net.HostPort;
import dev.sluice.server.metrics.SluiceMetrics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard's JavaScript, run in headless Chromium against {@link FakeProxyControl}: it
 * renders the topology, the per-endpoint weights and readable flags, the rates and read shares it
 * computes from the statement counters, the consistency waits it reads from /metrics, and the
 * costliest query digests. (The
 * end-to-end version against a real cluster is {@code sluice-it}'s {@code DashboardTest}.)
 */
class DashboardInBrowserTest {
    static {
        NettyLeakRecorder.install();
    }

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final long CHROMIUM_TIMEOUT_SECONDS = 90;
    /** Statements per poll: the primary takes a quarter of rw's, ro1 the rest. */
    private static final long PRIMARY_PER_POLL = 50;
    private static final long RO1_PER_POLL = 150;

    private FakeProxyControl control;
    private SluiceMetrics metrics;
    private AdminServer server;

    @BeforeEach
    void start() throws InterruptedException {
        assumeTrue(Files.isExecutable(CHROMIUM), CHROMIUM + " is missing: install Debian's chromium package "
                + "(./sluice test does) to run the dashboard in a browser");
        control = new FakeProxyControl();
        AtomicLong polls = new AtomicLong();
        control.onDescribe(() -> {
            long n = polls.incrementAndGet();
            control.load("primary", "rw", new FakeProxyControl.Load(2, 1, n * PRIMARY_PER_POLL));
            control.load("ro1", "rw", new FakeProxyControl.Load(3, 2, n * RO1_PER_POLL));
        });
        control.down("ro2");
        control.drainNode("ro1");
        control.roleChanges(new SwitchoverStatus("in-progress", "primary", "ro1", "fence", null, null,
                        System.currentTimeMillis()),
                new FailoverStatus("done", "auto", "ro2", "primary", "replication-check",
                        List.of(new SwitchoverOutcome.Step("confirm-gone", 12), new SwitchoverOutcome.Step("promote", 40)),
                        null, 812L, System.currentTimeMillis(), "0-1-1042", "ro2", "diverged", 3L, "holds 3 commits"));
        metrics = new SluiceMetrics();
        metrics.consistencyWait("rw", "timeout-primary", TimeUnit.MILLISECONDS.toNanos(10));
        LoopDigests digests = control.digests().forLoop(ImmediateEventExecutor.INSTANCE);
        DigestEntry update = digests.find(digests.digester().digest("/*FORCE_MASTER*/ UPDATE t SET a = 1 WHERE id < 5"),
                "rw", "app", "test");
        digests.record(update, TimeUnit.MILLISECONDS.toNanos(3), true, 0, true, 1_000);
        server = new AdminServer(new AdminConfig(new HostPort("127.0.0.1", 0), ""), control, metrics,
                new RecentHistory());
        server.start();
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (server != null) {
            server.close();
            metrics.close();
            assertThat(NettyLeakRecorder.collect()).isEmpty();
        }
    }

    private String dumpDom(Path profile, Path out) throws Exception {
        String url = "http://127.0.0.1:" + server.address().getPort() + "/";
        Process p = new ProcessBuilder(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--user-data-dir=" + profile, "--virtual-time-budget=5000", "--dump-dom", url))
                .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            assertThat(p.waitFor(CHROMIUM_TIMEOUT_SECONDS, TimeUnit.SECONDS)).as("chromium finished").isTrue();
            assertThat(p.exitValue()).isZero();
        } finally {
            p.destroyForcibly();
        }
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    private static String between(String text, String from, String to) {
        int start = text.indexOf(from);
        assertThat(start).as("'%s' in:%n%s", from, text).isNotNegative();
        return text.substring(start, text.indexOf(to, start));
    }

    private static String row(String table, String node) {
        Matcher m = Pattern.compile("<tr data-node=\"" + node + "\">(.*?)</tr>", Pattern.DOTALL).matcher(table);
        assertThat(m.find()).as("row %s in:%n%s", node, table).isTrue();
        return m.group(1);
    }

    @Test
    void theDashboardRendersTopologyLoadAndWaits(@TempDir Path dir) throws Exception {
        String dom = dumpDom(Files.createDirectory(dir.resolve("profile")), dir.resolve("dom.html"));

        assertThat(dom).contains("<span id=\"status\" class=\"status status-ok\"", "v0.1.0-test", "up 1 h 2 m");
        String topology = between(dom, "<table id=\"nodes\">", "</table>");
        assertThat(row(topology, "primary")).contains("badge role-primary\">primary<", "badge state-up\">up<",
                "<td class=\"readonly\">OFF</td>", "0-1-1042");
        assertThat(row(topology, "ro1")).contains("badge role-replica\">replica<", "badge state-up\">up<",
                "badge draining\">draining<", "zone a", "<td class=\"num lag\">1 s</td>");
        assertThat(row(topology, "ro2")).contains("badge state-down\">down<", "replication-broken\">broken<");

        String rw = between(dom, "<article class=\"card\" data-endpoint=\"rw\">", "</article>");
        assertThat(row(rw, "primary")).contains("</span>0</td>", "badge unreadable\">no<", "<td class=\"num share\">25%");
        assertThat(row(rw, "ro1")).contains("</span>100</td>", "<td class=\"num share\">75%");
        // Rates need two polls; every figure is a number, not the placeholder.
        assertThat(row(rw, "ro1")).containsPattern("<td class=\"num qps\">[0-9.]+</td>");
        assertThat(rw).contains("class=\"segment\"");

        String waits = between(dom, "<table id=\"waits\">", "</table>");
        assertThat(waits).contains("data-outcome=\"timeout-primary\"", "timeout → primary", "10.00 ms");

        String roles = between(dom, "<div id=\"roles\"", "</div>\n");
        String switchover = between(roles, "data-kind=\"switchover\"", "</article>");
        assertThat(switchover).contains("in progress", "primary", " → ", "ro1",
                "last step done", "old primary fenced");
        String failover = between(roles, "data-kind=\"failover\"", "</article>");
        assertThat(failover).contains("(automatic)", "done", "812 ms", "primary confirmed gone", "40 ms",
                "Old primary ro2", "holds commits the new primary never had", "(3 commits)");
        assertThat(roles.indexOf("data-kind=\"switchover\"")).as("the one in progress first")
                .isLessThan(roles.indexOf("data-kind=\"failover\""));

        assertThat(between(dom, "<div id=\"charts\"", "</section>")).as("every chart, empty before the first sample")
                .contains("data-chart=\"statements\"", "data-chart=\"consistency-waits\"", "data-series=\"0\"");

        String digests = between(dom, "<table id=\"digests\">", "</table>");
        assertThat(digests).contains("<code>UPDATE t SET a = ? WHERE id &lt; ?</code>", "badge hint\">FORCE_MASTER<",
                "<td class=\"num errors\">1</td>", "3.00 ms").doesNotContain("no statements counted yet");
    }

    @Test
    void withDigestsOffTheDigestTableSaysSo(@TempDir Path dir) throws Exception {
        server.close();
        server = new AdminServer(new AdminConfig(new HostPort("127.0.0.1", 0), ""),
                new FakeProxyControl(FakeProxyControl.CONFIG + "query-digests: false\n"), metrics, new RecentHistory());
        server.start();
        String dom = dumpDom(Files.createDirectory(dir.resolve("profile")), dir.resolve("dom.html"));

        String digests = between(dom, "<table id=\"digests\">", "</table>");
        assertThat(digests).contains("query digests are off", "query-digests: false")
                .doesNotContain("no statements counted yet");
    }
}
