package dev.sluice.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the sandbox's external commands ({@code scripts/sandbox.sh}, the {@code mariadb} client,
 * {@code kill}) with a time limit, and keeps their output in a log file.
 *
 * <p>Output goes to a file, never to this JVM's standard streams: Surefire talks to the forked
 * test JVM over them, and a child writing there would corrupt that channel.
 */
final class CommandRunner {

    private static final int OUTPUT_TAIL_CHARS = 4_000;

    private final Path workDir;
    private final Path logFile;

    CommandRunner(Path workDir, Path logFile) {
        this.workDir = workDir;
        this.logFile = logFile;
    }

    Path logFile() {
        return logFile;
    }

    /** Runs the command; returns its output (stdout and stderr together) or throws if it failed. */
    String run(Duration timeout, List<String> command) {
        Result result = tryRun(timeout, command);
        if (result.exitCode() != 0) {
            throw new SandboxException("`" + String.join(" ", command) + "` failed with exit code "
                    + result.exitCode() + ":\n" + tail(result.output()) + "\n(full log: " + logFile + ")");
        }
        return result.output();
    }

    /** Runs the command and returns its exit code and output, whatever they are; throws only on timeout. */
    Result tryRun(Duration timeout, List<String> command) {
        Path output = null;
        try {
            output = Files.createTempFile("sandbox-command", ".out");
            Process process = new ProcessBuilder(command)
                    .directory(workDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            process.getOutputStream().close();
            boolean finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!finished) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }
            String text = Files.readString(output, StandardCharsets.UTF_8);
            log(command, finished ? "exit " + process.exitValue() : "timed out", text);
            if (!finished) {
                throw new SandboxException("`" + String.join(" ", command) + "` did not finish within "
                        + timeout.toSeconds() + " s:\n" + tail(text) + "\n(full log: " + logFile + ")");
            }
            return new Result(process.exitValue(), text);
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxException("interrupted while running " + command, e);
        } finally {
            if (output != null) {
                try {
                    Files.deleteIfExists(output);
                } catch (IOException e) {
                    // A leftover temporary file is harmless; the command's result is what matters.
                }
            }
        }
    }

    private synchronized void log(List<String> command, String outcome, String output) {
        String entry = "[" + LocalTime.now().truncatedTo(ChronoUnit.MILLIS) + "] $ " + String.join(" ", command)
                + "\n" + output + (output.isEmpty() || output.endsWith("\n") ? "" : "\n")
                + "[" + outcome + "]\n";
        try {
            Files.createDirectories(logFile.getParent());
            Files.writeString(logFile, entry, StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the sandbox log " + logFile, e);
        }
    }

    private static String tail(String text) {
        return text.length() <= OUTPUT_TAIL_CHARS ? text : "..." + text.substring(text.length() - OUTPUT_TAIL_CHARS);
    }

    record Result(int exitCode, String output) {}
}
