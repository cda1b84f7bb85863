package dev.sluice.bench.consistency;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Where the figures were measured: the machine, the server and the client software. Latency
 * figures mean little without it, especially on a machine shared with the cluster and the proxy.
 */
record RunSetup(String machine, String serverVersion, String javaVersion, String driverVersion) {
    private static final double KIB_PER_GIB = 1024.0 * 1024.0;

    static RunSetup describe(PrimaryProbe primary) throws SQLException {
        String cpu = linesOf("/proc/cpuinfo").flatMap(lines -> lines.stream()
                .filter(l -> l.startsWith("model name")).findFirst()).map(l -> l.substring(l.indexOf(':') + 1).trim())
                .orElse("unknown CPU");
        String memory = linesOf("/proc/meminfo").flatMap(lines -> lines.stream()
                .filter(l -> l.startsWith("MemTotal")).findFirst())
                .map(l -> String.format(Locale.ROOT, "%.0f GiB", Long.parseLong(l.replaceAll("\\D", "")) / KIB_PER_GIB))
                .orElse("unknown memory");
        String machine = Runtime.getRuntime().availableProcessors() + " CPUs (" + cpu + "), " + memory;
        String java = System.getProperty("java.vm.name") + " " + System.getProperty("java.version");
        String driver = Optional.ofNullable(org.mariadb.jdbc.Driver.class.getPackage().getImplementationVersion())
                .orElseGet(() -> new org.mariadb.jdbc.Driver().getMajorVersion() + "."
                        + new org.mariadb.jdbc.Driver().getMinorVersion());
        return new RunSetup(machine, primary.version(), java, driver);
    }

    private static Optional<List<String>> linesOf(String file) {
        try {
            return Optional.of(Files.readAllLines(Path.of(file)));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
