package dev.sluice.it.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sluice run as users run it — {@code java -jar sluice-server/target/sluice.jar run --config FILE} —
 * in its own JVM with the memory limits a test chooses, against the sandbox cluster. Its output
 * goes to files in a directory of the test's choosing (never to this JVM's streams).
 */
public final class SluiceProcess implements AutoCloseable {
    /** A JVM's start on a loaded 2-core machine (a bound, not a wait: start is seen at once). */
    private static final Duration START_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    private static final Pattern ADMIN_LISTENING =
            Pattern.compile("admin API, metrics and dashboard on http://([^:/]+):(\\d+)/");

    private final Process process;
    private final Path stdout;
    private final Path stderr;
    private final int port;

    private SluiceProcess(Process process, Path stdout, Path stderr, int port) {
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
        this.port = port;
    }

    /**
     * Starts Sluice with one read-write endpoint {@code endpoint} whose reads all go to the primary (read weight 100, replicas 0), on a free port, with the given JVM
     * options, and waits until it listens.
     */
    public static SluiceProcess start(SandboxCluster cluster, Path dir, String endpoint, String extraYaml,
            List<String> jvmOptions) throws IOException {
        Path root = Path.of(System.getProperty("sluice.root", "")).toAbsolutePath();
        Path jar = root.resolve("sluice-server/target/sluice.jar");
        assertThat(jar).as("the runnable jar (mvn install -pl sluice-protocol,sluice-server)").exists();
        Path config = dir.resolve(endpoint + ".yaml");
        Files.writeString(config, SluiceHarness.nodesYaml(cluster) + extraYaml + """
                endpoints:
                  - name: %s
                    listen: 127.0.0.1:0
                    mode: read-write
                    weights: {primary: 100}
                """.formatted(endpoint));
        Path out = dir.resolve(endpoint + ".out");
        Path err = dir.resolve(endpoint + ".err");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar.toString(), "run", "--config", config.toString()));
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        Pattern listening = Pattern.compile("endpoint '" + Pattern.quote(endpoint)
                + "' \\(read-write\\) listening on /127\\.0\\.0\\.1:(\\d+)");
        int[] port = {0};
        try {
            await("Sluice process listening").atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(100)).until(() -> {
                assertThat(p.isAlive()).as("Sluice process alive; output:\n" + read(out) + read(err)).isTrue();
                Matcher m = listening.matcher(read(out) + read(err));
                if (m.find()) {
                    port[0] = Integer.parseInt(m.group(1));
                    return true;
                }
                return false;
            });
        } catch (RuntimeException | AssertionError e) {
            p.destroyForcibly();
            throw e;
        }
        return new SluiceProcess(p, out, err, port[0]);
    }

    public int port() {
        return port;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Where its admin API listens, as it logged at start (its file's admin section listens on port 0). */
    public InetSocketAddress adminAddress() {
        Matcher m = ADMIN_LISTENING.matcher(output());
        assertThat(m.find()).as("the admin API's address in the output:\n" + output()).isTrue();
        return new InetSocketAddress(m.group(1), Integer.parseInt(m.group(2)));
    }

    /** SIGKILL, as a crash or the OOM killer would end it: nothing is closed, no lease is given back. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Everything the process wrote so far, stdout then stderr. */
    public String output() {
        return read(stdout) + read(stderr);
    }

    /** A MariaDB Connector/J URL to the endpoint, database {@code test}. */
    public String mariadbUrl(String options) {
        return "jdbc:mariadb://127.0.0.1:" + port + "/test?user=" + SandboxCluster.APP_USER + "&password="
                + SandboxCluster.APP_PASSWORD + (options.isEmpty() ? "" : "&" + options);
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? new String(Files.readAllBytes(file), StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** SIGTERM (Sluice stops gracefully: BEHAVIOUR §13), SIGKILL if it does not stop in time. */
    @Override
    public void close() throws InterruptedException {
        ChildProcess.stop(process, STOP_TIMEOUT);
    }
}
