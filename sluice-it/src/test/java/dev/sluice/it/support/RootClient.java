package dev.sluice.it.support;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * SQL as {@code root} over a node's Unix socket, through the {@code mariadb} client and the node's
 * own {@code my.cnf} (whose {@code [client]} section names the socket and the user).
 *
 * <p>Administration goes this way rather than through the {@code app} account: {@code app} lacks
 * {@code READ_ONLY ADMIN} (so that replicas' {@code read_only} applies to it, as to an application),
 * and root exists only on the socket.
 */
final class RootClient {

    private static final Duration CONNECT_AND_RUN_MARGIN = Duration.ofSeconds(30);
    private static final String CONNECT_TIMEOUT_SECONDS = "5";

    private final CommandRunner runner;
    private final Function<SandboxNode, Path> defaultsFile;

    RootClient(CommandRunner runner, Function<SandboxNode, Path> defaultsFile) {
        this.runner = runner;
        this.defaultsFile = defaultsFile;
    }

    /** Runs statements; returns the output without headers, tab-separated, trimmed. */
    String query(SandboxNode node, String sql) {
        return query(node, sql, Duration.ZERO);
    }

    /** Like {@link #query(SandboxNode, String)} for statements that may themselves wait up to {@code expectedWait}. */
    String query(SandboxNode node, String sql, Duration expectedWait) {
        return runner.run(expectedWait.plus(CONNECT_AND_RUN_MARGIN), command(node, List.of("--batch", "--skip-column-names"), sql))
                .trim();
    }

    ReplicaStatus replicaStatus(SandboxNode node) {
        String output = runner.run(CONNECT_AND_RUN_MARGIN, command(node, List.of("--vertical"), "SHOW SLAVE STATUS"));
        Map<String, String> fields = new LinkedHashMap<>();
        // "   Field_Name: value" lines; an empty value leaves "Field_Name:" (the client trims the space).
        for (String line : output.split("\n")) {
            String trimmed = line.strip();
            int colon = trimmed.indexOf(':');
            if (colon > 0 && !trimmed.startsWith("*")) {
                fields.put(trimmed.substring(0, colon), trimmed.substring(colon + 1).strip());
            }
        }
        return ReplicaStatus.of(fields);
    }

    private List<String> command(SandboxNode node, List<String> outputOptions, String sql) {
        List<String> command = new ArrayList<>(List.of(
                "mariadb", "--defaults-file=" + defaultsFile.apply(node), "--connect-timeout=" + CONNECT_TIMEOUT_SECONDS));
        command.addAll(outputOptions);
        command.add("--execute=" + sql);
        return command;
    }
}
