package dev.sluice.it.support;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * A single-node etcd for cluster-mode tests, run by the project's own {@code scripts/etcd.sh} on a
 * loopback port of the test's choosing (never etcd's default 2379/2380), its data under
 * {@code sluice-it/target/etcd-PORT}. Each test class starts its own and destroys it afterwards.
 * {@link #startWithClientCertificates} runs it over TLS, refusing clients without a certificate
 * signed by its CA ({@code --tls DIR/tls --client-cert-auth}; the files are made fresh each time).
 */
public final class EtcdServer implements AutoCloseable {
    private static final Duration SCRIPT_TIMEOUT = Duration.ofMinutes(3);

    private final int port;
    private final Path dir;
    private final CommandRunner runner;
    private final Path root;
    private final boolean tls;

    private EtcdServer(Path root, int port, boolean tls) {
        this.root = root;
        this.port = port;
        this.tls = tls;
        this.dir = root.resolve("sluice-it/target/etcd-" + port);
        this.runner = new CommandRunner(root, root.resolve("sluice-it/target/etcd-" + port + "-harness.log"));
    }

    /**
     * A fresh etcd on {@code port}. Installs etcd first when it is missing (as {@code ./sluice test}
     * does); the test is skipped, saying why, only when etcd is absent and cannot be installed.
     */
    public static EtcdServer start(int port) {
        return start(port, false);
    }

    /** The same over TLS, with client certificates required: see {@link #tlsDir()}. */
    public static EtcdServer startWithClientCertificates(int port) {
        return start(port, true);
    }

    private static EtcdServer start(int port, boolean tls) {
        EtcdServer etcd = new EtcdServer(SandboxCluster.findRepositoryRoot(), port, tls);
        CommandRunner.Result installed = etcd.runner.tryRun(SCRIPT_TIMEOUT,
                List.of(etcd.root.resolve("scripts/install-deps.sh").toString(), "etcd"));
        Assumptions.assumeTrue(installed.exitCode() == 0, () -> "etcd is not installed and cannot be installed "
                + "here (scripts/install-deps.sh etcd): " + installed.output());
        etcd.script("destroy");
        etcd.start();
        return etcd;
    }

    /** The client URL. */
    public String url() {
        return (tls ? "https" : "http") + "://127.0.0.1:" + port;
    }

    /**
     * With TLS, where scripts/etcd.sh made the certificates: {@code ca.pem} (which signed the
     * others), {@code server.pem}, and {@code client.pem} with {@code client-key.pem} (CN=sluice).
     */
    public Path tlsDir() {
        return dir.resolve("tls");
    }

    /**
     * A CA certificate that signed nothing etcd has, made with openssl in {@code dir}: what a
     * configuration pointing at the wrong CA file gives.
     */
    public Path strangerCa(Path dir) {
        Path ca = dir.resolve("stranger-ca.pem");
        runner.run(SCRIPT_TIMEOUT, List.of("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                "ec_paramgen_curve:P-256", "-nodes", "-keyout", dir.resolve("stranger-ca-key.pem").toString(),
                "-out", ca.toString(), "-subj", "/CN=a CA etcd does not know", "-days", "2"));
        return ca;
    }

    /** Starts it again on its data (after {@link #stop()}), and waits until it answers. */
    public void start() {
        List<String> options = new ArrayList<>();
        if (tls) {
            options.addAll(List.of("--tls", tlsDir().toString(), "--client-cert-auth"));
        }
        script("start", options);
    }

    /** Stops it; its data is kept. */
    public void stop() {
        script("stop");
    }

    @Override
    public void close() {
        script("destroy");
    }

    private void script(String command) {
        script(command, List.of());
    }

    private void script(String command, List<String> options) {
        List<String> line = new ArrayList<>(List.of(root.resolve("scripts/etcd.sh").toString(), command, "--port",
                Integer.toString(port), "--dir", dir.toString()));
        line.addAll(options);
        runner.run(SCRIPT_TIMEOUT, line);
    }
}
