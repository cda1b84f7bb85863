package dev.sluice.it.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The distribution as a user gets it: {@code ./sluice dist} run from the checkout, its tarball
 * unpacked into an empty directory, and {@code bin/sluice} started there with a clean environment
 * whose PATH holds a {@code java} and the few POSIX tools the launcher uses — no Maven, no checkout.
 */
final class Installation {
    /** What bin/sluice runs besides java (the shell's own builtins aside). */
    private static final List<String> LAUNCHER_TOOLS = List.of("dirname", "readlink", "sed", "head", "cut");
    private static final long BUILD_TIMEOUT_S = 120;

    private Installation() {
    }

    /** Runs {@code scripts/dist.sh} on the jar the reactor just built; returns the tarball. */
    static Path buildTarball(Path out) throws IOException, InterruptedException {
        Path root = Path.of(System.getProperty("sluice.root", "")).toAbsolutePath();
        Path jar = root.resolve("sluice-server/target/sluice.jar");
        assertThat(jar).as("the runnable jar the reactor builds before sluice-it").exists();
        ProcessBuilder pb = new ProcessBuilder("bash", root.resolve("scripts/dist.sh").toString(), "--jar",
                jar.toString(), "--out", out.toString());
        pb.environment().put("PATH", javaBin() + ":/usr/bin:/bin");
        String output = run(pb, out.resolve("dist.log"));
        List<String> paths = output.lines().filter(l -> l.startsWith("/") && l.endsWith(".tar.gz")).toList();
        assertThat(paths).as("the tarball's path, printed by dist.sh; output:\n" + output).hasSize(1);
        Path tarball = Path.of(paths.get(0));
        assertThat(tarball.getFileName().toString()).matches("sluice-[0-9][0-9A-Za-z.+-]*\\.tar\\.gz");
        assertThat(tarball).exists().hasParent(out.toRealPath());
        return tarball;
    }

    /** Unpacks {@code tarball} into the empty directory {@code into}; returns the installation's top directory. */
    static Path unpack(Path tarball, Path into) throws IOException, InterruptedException {
        Files.createDirectories(into);
        try (Stream<Path> before = Files.list(into)) {
            assertThat(before).as("the directory the tarball is unpacked in is empty").isEmpty();
        }
        run(new ProcessBuilder("tar", "-xzf", tarball.toString(), "-C", into.toString()), into.resolveSibling(
                into.getFileName() + ".tar.log"));
        String top = tarball.getFileName().toString().replace(".tar.gz", "");
        Path home = into.resolve(top);
        assertThat(home.resolve("bin/sluice")).isExecutable();
        assertThat(home.resolve("lib/sluice.jar")).isRegularFile();
        assertThat(home.resolve("conf/sluice.yaml")).isRegularFile();
        assertThat(home.resolve("systemd/sluice.service")).isRegularFile();
        return home;
    }

    /**
     * A directory holding only {@code java} and the launcher's tools: the PATH of the installed Sluice.
     * Each is a one-line script that execs the real program (not a link, which the temporary
     * directory's cleanup would warn about).
     */
    static Path jreOnlyPath(Path dir) throws IOException {
        Files.createDirectories(dir);
        tool(dir, "java", javaBin().resolve("java"));
        for (String name : LAUNCHER_TOOLS) {
            tool(dir, name, Stream.of("/usr/bin", "/bin").map(d -> Path.of(d, name)).filter(Files::isExecutable)
                    .findFirst().orElseThrow(() -> new AssertionError(name + " is not installed")));
        }
        return dir;
    }

    private static void tool(Path dir, String name, Path program) throws IOException {
        Path script = dir.resolve(name);
        Files.writeString(script, "#!/bin/sh\nexec '" + program + "' \"$@\"\n");
        Files.setPosixFilePermissions(script, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /** {@code bin/sluice ARGS} in {@code home}, environment cleared but for {@code env}; output to files. */
    static ProcessBuilder launcher(Path home, Path path, Map<String, String> env, String... args) {
        List<String> command = new java.util.ArrayList<>();
        command.add(home.resolve("bin/sluice").toString());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(home.toFile());
        pb.environment().clear();
        pb.environment().put("PATH", path.toString());
        pb.environment().putAll(env);
        return pb;
    }

    /** Runs to its end (bounded), output to {@code log}; fails with the output unless it exits 0. */
    static String run(ProcessBuilder pb, Path log) throws IOException, InterruptedException {
        Process p = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(BUILD_TIMEOUT_S, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(pb.command() + " did not end within " + BUILD_TIMEOUT_S + " s");
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(pb.command() + " exit status; output:\n" + output).isZero();
        return output;
    }

    private static Path javaBin() {
        return Path.of(System.getProperty("java.home"), "bin");
    }
}
