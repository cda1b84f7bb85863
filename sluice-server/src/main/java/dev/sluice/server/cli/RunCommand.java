package dev.sluice.server.cli;

import dev.sluice.server.SluiceServer;
import dev.sluice.server.config.ConfigException;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.SluiceConfig;
import dev.sluice.server.logging.LogOutput;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code run --config FILE}: runs the proxy until it is stopped (BEHAVIOUR §13). SIGTERM stops it
 * gracefully and the process exits 0; SIGHUP reads the configuration file again; SIGINT (Ctrl-C)
 * and any other exit close it at once, through the shutdown hook. A start that fails — a bad
 * configuration (exit 2), a port taken, a certificate that cannot be read (exit 1) — prints one
 * line that says what, not a stack trace.
 */
@Command(name = "run", description = "Run the proxy with a configuration file")
final class RunCommand implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);
    private static final int CONFIG_ERROR = 2;
    private static final int START_FAILED = 1;

    @Spec
    CommandSpec spec;

    @Option(names = "--config", required = true, description = "YAML configuration file")
    Path config;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        SluiceConfig cfg;
        try {
            cfg = ConfigLoader.load(config);
        } catch (ConfigException e) {
            err.println("sluice: " + config + ": " + e.getMessage());
            return CONFIG_ERROR;
        }
        LogOutput.use(cfg.process().logFormat());
        SluiceServer server;
        try {
            server = SluiceServer.start(cfg, Optional.of(config.toAbsolutePath()));
        } catch (ConfigException e) {
            // Found only when it is used: a certificate file, etcd refusing the instance's credentials.
            err.println("sluice: " + config + ": " + e.getMessage());
            return CONFIG_ERROR;
        } catch (RuntimeException e) {
            // What the machine refuses (a port taken, a file that cannot be read) is the operator's to fix:
            // the message says what; the stack trace is for a bug report, at DEBUG.
            LOG.debug("start failed", e);
            err.println("sluice: cannot start with " + config + ": " + e.getMessage());
            return START_FAILED;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicBoolean stopping = new AtomicBoolean();
        ServiceSignals.on("TERM", () -> {
            if (!stopping.compareAndSet(false, true)) {
                LOG.info("SIGTERM: already stopping");
                return;
            }
            try {
                server.shutdown(server.runtime().config().process().shutdownTimeout());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                server.close();
            } finally {
                stopped.countDown();
            }
        });
        ServiceSignals.on("HUP", () -> {
            LOG.info("SIGHUP: reading {} again", config);
            server.reloadConfiguration();
        });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (stopping.compareAndSet(false, true)) {
                server.close();
            }
            stopped.countDown();
        }, "sluice-shutdown"));
        stopped.await();
        return 0;
    }
}
