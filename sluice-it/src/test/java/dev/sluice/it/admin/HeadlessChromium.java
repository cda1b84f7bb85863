package dev.sluice.it.admin;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Debian's {@code chromium} in headless mode, one process per page: a fresh profile each time (no
 * state between runs), no network beyond the page, and a virtual-time budget so that the page's
 * timers (the dashboard polls every second) run a few rounds before the DOM is read.
 */
final class HeadlessChromium {
    static final Path BINARY = Path.of("/usr/bin/chromium");
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final int VIRTUAL_TIME_BUDGET_MS = 5000;

    private final Path logDir;

    HeadlessChromium(Path logDir) {
        this.logDir = logDir;
    }

    static boolean isInstalled() {
        return Files.isExecutable(BINARY);
    }

    /** The DOM of {@code url} after the virtual-time budget, as Chromium serializes it. */
    String dumpDom(String url) throws IOException, InterruptedException {
        Path out = Files.createTempFile("dashboard-dom", ".html");
        try {
            run(out, "--dump-dom", url);
            return Files.readString(out, StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** A PNG of {@code url} at {@code width}×{@code height}. */
    void screenshot(String url, Path png, int width, int height) throws IOException, InterruptedException {
        Files.createDirectories(png.toAbsolutePath().getParent());
        Files.deleteIfExists(png);
        run(null, "--screenshot=" + png.toAbsolutePath(), "--window-size=" + width + "," + height, url);
    }

    private void run(Path stdout, String... args) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("sluice-chromium");
        List<String> command = new ArrayList<>(List.of(BINARY.toString(), "--headless", "--no-sandbox",
                "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile,
                "--virtual-time-budget=" + VIRTUAL_TIME_BUDGET_MS));
        command.addAll(List.of(args));
        Files.createDirectories(logDir);
        Path log = logDir.resolve("chromium.log");
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.redirectOutput(stdout == null ? ProcessBuilder.Redirect.appendTo(log.toFile())
                : ProcessBuilder.Redirect.to(stdout.toFile()));
        Process p = pb.start();
        try {
            if (!p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("chromium did not finish within " + TIMEOUT + "; see " + log);
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException("chromium exited with " + p.exitValue() + "; see " + log);
            }
        } finally {
            p.destroyForcibly();
            deleteTree(profile);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            // Chromium may still be removing its own files; a leftover temp profile is harmless.
        }
    }
}
