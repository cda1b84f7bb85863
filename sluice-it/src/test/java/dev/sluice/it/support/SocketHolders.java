package dev.sluice.it.support;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Says who holds the client end of a connection a node still lists, so that a leak names its
 * owner: this test JVM (a Sluice that was closed, or a test's own client) or another process.
 * Linux only: it reads the kernel's TCP table and this process's file descriptors under /proc.
 */
final class SocketHolders {
    private static final List<Path> TCP_TABLES = List.of(Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6"));
    private static final Path OWN_FDS = Path.of("/proc/self/fd");
    private static final int LOCAL_ADDRESS = 1;
    private static final int STATE = 3;
    private static final int QUEUES = 4;
    private static final int INODE = 9;

    private SocketHolders() {
    }

    /**
     * One line about the socket whose local port is {@code clientPort}: whether this JVM holds
     * it, its TCP state, and the bytes queued on it (an answer nobody read shows as receive queue).
     */
    static String describe(int clientPort) {
        try {
            Set<String> own = ownSocketInodes();
            for (String line : tableRows()) {
                String[] f = line.trim().split("\\s+");
                String local = f[LOCAL_ADDRESS];
                if (Integer.parseInt(local.substring(local.indexOf(':') + 1), 16) != clientPort) {
                    continue;
                }
                String[] queues = f[QUEUES].split(":");
                return String.format(Locale.ROOT, "port %d: %s, tcp state %s, send queue %d, receive queue %d",
                        clientPort, own.contains(f[INODE]) ? "held by this test JVM" : "not held by this JVM",
                        f[STATE], Long.parseLong(queues[0], 16), Long.parseLong(queues[1], 16));
            }
            return "port " + clientPort + ": no such socket on this host";
        } catch (IOException | RuntimeException e) {
            return "port " + clientPort + ": cannot tell (" + e.getMessage() + ")";
        }
    }

    /** Names of this JVM's live threads that belong to a Sluice (its event loops and workers). */
    static String sluiceThreads() {
        List<String> names = Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                .filter(n -> n.startsWith("sluice")).sorted().collect(Collectors.toList());
        return names.isEmpty() ? "no Sluice thread alive" : "Sluice threads alive: " + names;
    }

    private static List<String> tableRows() throws IOException {
        List<String> rows = new ArrayList<>();
        for (Path table : TCP_TABLES) {
            if (Files.exists(table)) {
                List<String> lines = Files.readAllLines(table);
                rows.addAll(lines.subList(1, lines.size()));
            }
        }
        return rows;
    }

    private static Set<String> ownSocketInodes() throws IOException {
        Set<String> inodes = new HashSet<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(OWN_FDS)) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring("socket:[".length(), target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // The descriptor was closed while the directory was read.
                }
            }
        }
        return inodes;
    }
}
