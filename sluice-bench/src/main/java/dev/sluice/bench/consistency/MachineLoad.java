package dev.sluice.bench.consistency;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalDouble;

/**
 * The machine's one-minute load average, recorded with every run: the cluster, Sluice and the
 * checker share the CPUs with whatever else runs there, and latencies and replica shares only
 * mean something next to how busy the machine was.
 */
final class MachineLoad {
    private static final Path LOAD_AVERAGE = Path.of("/proc/loadavg");

    private MachineLoad() {
    }

    static OptionalDouble oneMinute() {
        try {
            String[] fields = Files.readString(LOAD_AVERAGE).trim().split("\\s+");
            return OptionalDouble.of(Double.parseDouble(fields[0]));
        } catch (IOException | RuntimeException e) {
            return OptionalDouble.empty();
        }
    }
}
