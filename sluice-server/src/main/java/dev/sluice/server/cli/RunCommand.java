package dev.sluice.server.cli;

import dev.sluice.server.SluiceServer;
import dev.sluice.server.config.ConfigException;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.SluiceConfig;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code run --config FILE}: runs the proxy until it is stopped (SIGINT / SIGTERM). */
@Command(name = "run", description = "Run the proxy with a configuration file")
final class RunCommand implements Callable<Integer> {
    private static final int CONFIG_ERROR = 2;

    @Option(names = "--config", required = true, description = "YAML configuration file")
    Path config;

    @Override
    public Integer call() throws Exception {
        SluiceConfig cfg;
        try {
            cfg = ConfigLoader.load(config);
        } catch (ConfigException e) {
            System.err.println("sluice: " + config + ": " + e.getMessage());
            return CONFIG_ERROR;
        }
        SluiceServer server = SluiceServer.start(cfg, java.util.Optional.of(config.toAbsolutePath()));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "sluice-shutdown"));
        stopped.await();
        return 0;
    }
}
