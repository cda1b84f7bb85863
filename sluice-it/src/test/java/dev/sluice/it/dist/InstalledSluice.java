package dev.sluice.it.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An installed Sluice run by {@code bin/sluice run --config conf/sluice.yaml} with
 * {@code log-format: json}: its log read back as JSON objects, one per line, and signals sent to it
 * as a service manager would.
 */
final class InstalledSluice implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration KILL_WAIT = Duration.ofSeconds(30);
    private static final Pattern ENDPOINT = Pattern.compile("endpoint 'rw' \\(read-write\\) listening on /127\\.0\\.0\\.1:(\\d+)");
    private static final Pattern ADMIN = Pattern.compile("admin API and dashboard on http://127\\.0\\.0\\.1:(\\d+)/");

    private final Process process;
    private final Path log;
    private final int port;
    private final int adminPort;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private InstalledSluice(Process process, Path log, int port, int adminPort) {
        this.process = process;
        this.log = log;
        this.port = port;
        this.adminPort = adminPort;
    }

    /** Starts {@code pb} (the launcher's {@code run}), its output in {@code log}, and waits until it serves. */
    static InstalledSluice start(ProcessBuilder pb, Path log) throws IOException {
        Process p = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
        int[] ports = new int[2];
        try {
            await("the installed Sluice listening").atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        assertThat(p.isAlive()).as("Sluice alive; output:\n" + read(log)).isTrue();
                        ports[0] = find(ENDPOINT, log).orElse(0);
                        ports[1] = find(ADMIN, log).orElse(0);
                        return ports[0] > 0 && ports[1] > 0;
                    });
        } catch (RuntimeException | AssertionError e) {
            p.destroyForcibly();
            throw e;
        }
        return new InstalledSluice(p, log, ports[0], ports[1]);
    }

    private static Optional<Integer> find(Pattern pattern, Path log) {
        for (String message : messages(log)) {
            Matcher m = pattern.matcher(message);
            if (m.find()) {
                return Optional.of(Integer.parseInt(m.group(1)));
            }
        }
        return Optional.empty();
    }

    int port() {
        return port;
    }

    long pid() {
        return process.pid();
    }

    Process process() {
        return process;
    }

    /** The {@code message} of every log line so far; a line that is not a complete JSON log object fails. */
    List<String> messages() {
        return messages(log);
    }

    String output() {
        return read(log);
    }

    private static List<String> messages(Path log) {
        List<String> out = new ArrayList<>();
        String text = read(log);
        int end = text.lastIndexOf('\n');
        // A last line without its line break is still being written.
        for (String line : text.substring(0, end + 1).lines().toList()) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode o;
            try {
                o = JSON.readTree(line);
            } catch (IOException e) {
                throw new AssertionError("a log line that is not JSON (log-format: json): " + line, e);
            }
            for (String key : List.of("time", "level", "logger", "thread", "message")) {
                assertThat(o.hasNonNull(key)).as("key " + key + " in " + line).isTrue();
            }
            out.add(o.get("message").asText());
        }
        return out;
    }

    /** Whether a log message so far contains {@code text}; fails at once if Sluice is gone without it. */
    boolean logged(String text) {
        if (messages().stream().anyMatch(m -> m.contains(text))) {
            return true;
        }
        assertThat(process.isAlive()).as("Sluice alive while waiting for '" + text + "'; output:\n" + output())
                .isTrue();
        return false;
    }

    /** Sends {@code signal} (e.g. {@code HUP}) to the JVM: the launcher exec'd it, so it has the launcher's pid. */
    void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("/bin/sh", "-c", "kill -" + signal + " " + process.pid()).start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(kill.exitValue()).as("kill -" + signal).isZero();
    }

    /** GET on the admin API, as JSON. */
    JsonNode admin(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + path))
                .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("GET " + path + ": " + r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whatever a test left running is killed: nothing may outlive the test class. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }
}
