package dev.sluice.it.support;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * A single-node etcd for cluster-mode tests, run by the project's own {@code scripts/etcd.sh} on a
 * loopback port of the test's choosing (never etcd's default 2379/2380), its data under
 * {@code sluice-it/target/etcd-PORT}. Each test class starts its own and destroys it afterwards.
 */
public final class EtcdServer implements AutoCloseable {
    private static final Duration SCRIPT_TIMEOUT = Duration.ofMinutes(3);

    private final int port;
    private final Path dir;
    private final CommandRunner runner;
    private final Path root;

    private EtcdServer(Path root, int port) {
        this.root = root;
        this.port = port;
        this.dir = root.resolve("sluice-it/target/etcd-" + port);
        this.runner = new CommandRunner(root, root.resolve("sluice-it/target/etcd-" + port + "-harness.log"));
    }

    /**
     * A fresh etcd on {@code port}. Installs etcd first when it is missing (as {@code ./sluice test}
     * does); the test is skipped, saying why, only when etcd is absent and cannot be installed.
     */
    public static EtcdServer start(int port) {
        EtcdServer etcd = new EtcdServer(SandboxCluster.findRepositoryRoot(), port);
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
        return "http://127.0.0.1:" + port;
    }

    /** Starts it again on its data (after {@link #stop()}), and waits until it answers. */
    public void start() {
        script("start");
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
        runner.run(SCRIPT_TIMEOUT, List.of(root.resolve("scripts/etcd.sh").toString(), command, "--port",
                Integer.toString(port), "--dir", dir.toString()));
    }
}
