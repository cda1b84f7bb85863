package dev.sluice.it.support;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * HAProxy in TCP mode in front of several Sluice instances, as the cluster mode is deployed
 * (BEHAVIOUR §11): round robin, a health check every 200 ms, and a connect that fails on a dead
 * instance sent to another one (`option redispatch`). Run from Debian's package (installed by
 * {@code scripts/install-deps.sh haproxy} when missing) in the foreground, its files in a directory
 * of the test's choosing.
 */
public final class TcpBalancer implements AutoCloseable {
    private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration LISTEN_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    private static final List<Path> SBIN = List.of(Path.of("/usr/sbin/haproxy"), Path.of("/usr/local/sbin/haproxy"));

    private final Process process;
    private final int port;
    private final Path log;

    private TcpBalancer(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** HAProxy balancing over {@code servers} (loopback ports), listening on a free loopback port. */
    public static TcpBalancer start(Path dir, List<Integer> servers) throws IOException {
        Path root = SandboxCluster.findRepositoryRoot();
        CommandRunner runner = new CommandRunner(root, dir.resolve("install.log"));
        CommandRunner.Result installed = runner.tryRun(INSTALL_TIMEOUT,
                List.of(root.resolve("scripts/install-deps.sh").toString(), "haproxy"));
        Assumptions.assumeTrue(installed.exitCode() == 0, () -> "haproxy is not installed and cannot be installed "
                + "here (scripts/install-deps.sh haproxy): " + installed.output());
        int port = freePort();
        StringBuilder config = new StringBuilder("""
                global
                  maxconn 2000
                defaults
                  mode tcp
                  timeout connect 1s
                  timeout client 120s
                  timeout server 120s
                  retries 3
                  option redispatch
                listen sluice
                  bind 127.0.0.1:%d
                  balance roundrobin
                """.formatted(port));
        for (int i = 0; i < servers.size(); i++) {
            config.append("  server s").append(i).append(" 127.0.0.1:").append(servers.get(i))
                    .append(" check inter 200ms fall 1 rise 2\n");
        }
        Path file = dir.resolve("haproxy.cfg");
        Files.writeString(file, config.toString());
        Path log = dir.resolve("haproxy.log");
        Process p = new ProcessBuilder(executable().toString(), "-db", "-f", file.toString()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        TcpBalancer balancer = new TcpBalancer(p, port, log);
        try {
            await("haproxy listening").atMost(LISTEN_TIMEOUT).pollInterval(Duration.ofMillis(100)).until(() -> {
                if (!p.isAlive()) {
                    throw new IllegalStateException("haproxy ended: " + balancer.output());
                }
                return accepts(port);
            });
        } catch (RuntimeException e) {
            p.destroyForcibly();
            throw e;
        }
        return balancer;
    }

    public int port() {
        return port;
    }

    public String output() {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws InterruptedException {
        ChildProcess.stop(process, STOP_TIMEOUT);
    }

    /** Debian installs it in /usr/sbin, which is not on every account's PATH. */
    private static Path executable() {
        List<Path> candidates = new java.util.ArrayList<>();
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty()) {
                candidates.add(Path.of(dir, "haproxy"));
            }
        }
        candidates.addAll(SBIN);
        return candidates.stream().filter(Files::isExecutable).findFirst()
                .orElseThrow(() -> new IllegalStateException("no haproxy executable on PATH or in " + SBIN));
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
