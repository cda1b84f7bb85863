package dev.sluice.it.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

/**
 * The operating-system process of one sandbox node: found through its pid file, checked against
 * its command line (a stale pid file or a reused pid is not mistaken for the node), and signalled
 * the way fault-injection tests need (SIGKILL, SIGSTOP, SIGCONT).
 */
final class NodeProcess {

    private static final Duration POLL_INTERVAL = Duration.ofMillis(50);
    private static final char STATE_STOPPED = 'T';
    private static final char STATE_ZOMBIE = 'Z';

    private final SandboxNode node;
    private final Path pidFile;
    private final String defaultsFileArgument;

    NodeProcess(SandboxNode node, Path nodeDir) {
        this.node = node;
        this.pidFile = nodeDir.resolve("mariadbd.pid");
        this.defaultsFileArgument = "--defaults-file=" + nodeDir.resolve("my.cnf");
    }

    /** The pid of the node's mariadbd when it runs (paused or not), empty when it does not. */
    OptionalLong pid() {
        long pid;
        try {
            pid = Long.parseLong(Files.readString(pidFile, StandardCharsets.US_ASCII).trim());
        } catch (NoSuchFileException | NumberFormatException e) {
            return OptionalLong.empty();
        } catch (IOException e) {
            throw new SandboxException("cannot read " + pidFile, e);
        }
        String cmdline = readProc(pid, "cmdline").replace('\0', ' ');
        if (!cmdline.contains(defaultsFileArgument) || isDead(pid)) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(pid);
    }

    boolean isRunning() {
        return pid().isPresent();
    }

    boolean isPaused() {
        OptionalLong pid = pid();
        return pid.isPresent() && state(pid.getAsLong()) == STATE_STOPPED;
    }

    /** Sends a signal ({@code KILL}, {@code STOP}, {@code CONT}, ...) to the running node. */
    long signal(CommandRunner runner, String signal) {
        long pid = pid().orElseThrow(() -> new SandboxException(node.name() + " is not running; cannot send SIG" + signal));
        runner.run(Duration.ofSeconds(10), List.of("kill", "-" + signal, Long.toString(pid)));
        return pid;
    }

    /** Waits until the process with this pid has exited (zombies count as exited). */
    void awaitExit(long pid, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!isDead(pid)) {
            if (System.nanoTime() > deadline) {
                throw new SandboxException(node.name() + " (pid " + pid + ") did not exit within " + timeout.toSeconds() + " s");
            }
            sleep(POLL_INTERVAL);
        }
    }

    /** Waits until the process with this pid is stopped by SIGSTOP. */
    void awaitPaused(long pid, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (state(pid) != STATE_STOPPED) {
            if (System.nanoTime() > deadline) {
                throw new SandboxException(node.name() + " (pid " + pid + ") was not stopped within " + timeout.toSeconds() + " s");
            }
            sleep(POLL_INTERVAL);
        }
    }

    private static boolean isDead(long pid) {
        char state = state(pid);
        return state == 0 || state == STATE_ZOMBIE;
    }

    /** The state letter from /proc/PID/stat (R, S, D, T, Z, ...), or 0 when there is no such process. */
    private static char state(long pid) {
        String stat = readProc(pid, "stat");
        int afterName = stat.lastIndexOf(") ");
        return afterName < 0 ? 0 : stat.charAt(afterName + 2);
    }

    private static String readProc(long pid, String file) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), file), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            return "";
        }
    }

    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxException("interrupted", e);
        }
    }
}
