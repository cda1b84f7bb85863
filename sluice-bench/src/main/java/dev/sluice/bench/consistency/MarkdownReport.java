package dev.sluice.bench.consistency;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The section {@value #TITLE} of {@code docs/PERFORMANCE.md}: a header (machine, versions, Sluice's
 * configuration, what each check and column means) and one block per run (its findings, a table
 * per phase, examples of what went stale, the exact command). {@code --append} adds a run block
 * to the section already there, so configurations can be reported side by side.
 */
final class MarkdownReport {
    static final String TITLE = "## Consistency levels (consistency-check)";
    private static final String MAIN_CLASS = ConsistencyCheck.class.getName();
    /** Set by {@code consistency-check.sh}: its own command line, which also started the cluster and Sluice. */
    private static final String LAUNCHER_COMMAND = "CONSISTENCY_CHECK_COMMAND";
    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'");

    private final CheckOptions options;
    private final RunSetup setup;
    private final List<PhaseResult> phases;

    MarkdownReport(CheckOptions options, RunSetup setup, List<PhaseResult> phases) {
        this.options = options;
        this.setup = setup;
        this.phases = phases;
    }

    /** Writes the report into {@code file}: the whole section, or with {@code --append} this run's block. */
    void writeTo(Path file) throws IOException {
        List<String> lines = Files.exists(file) ? Files.readAllLines(file) : List.of("# Performance", "",
                "Figures measured side by side in one run; see each section for how.");
        int start = lines.indexOf(TITLE);
        int end = start < 0 ? lines.size() : start + 1;
        while (end < lines.size() && !lines.get(end).startsWith("## ")) {
            end++;
        }
        List<String> before = new ArrayList<>(lines.subList(0, start < 0 ? lines.size() : start));
        List<String> after = lines.subList(end, lines.size());
        String section = options.append() && start >= 0
                ? String.join("\n", lines.subList(start, end)).stripTrailing() + "\n\n" + runBlock()
                : header() + runBlock();
        trimBlankTail(before);
        List<String> out = new ArrayList<>(before);
        out.add("");
        out.add(section.stripTrailing());
        if (!after.isEmpty()) {
            out.add("");
            out.addAll(after);
        }
        Files.writeString(file, String.join("\n", out) + "\n");
    }

    private static void trimBlankTail(List<String> lines) {
        while (!lines.isEmpty() && lines.get(lines.size() - 1).isBlank()) {
            lines.remove(lines.size() - 1);
        }
    }

    private String header() throws IOException {
        StringBuilder md = new StringBuilder();
        md.append(TITLE).append("\n\n");
        md.append("Measured with `").append(MAIN_CLASS).append("` (`sluice-bench/scripts/consistency-check.sh`).\n\n");
        md.append("- Machine: ").append(setup.machine())
                .append(options.machine().isBlank() ? "" : "; " + options.machine()).append(".\n");
        md.append("- Versions: MariaDB ").append(setup.serverVersion()).append(", ").append(setup.javaVersion())
                .append(", MariaDB Connector/J ").append(setup.driverVersion()).append(".\n");
        md.append("- Sluice: one read-write endpoint per level over the primary and the replicas, identical but")
                .append(" for `consistency` (configuration at the end of this section).\n\n");
        md.append("""
                What is checked (a *violation* is a read that returned an older value than it was owed):

                - *read-your-writes*: each session updates its own row (autocommit) and reads it back at once on
                  the same connection. Promised by `session` and `global`.
                - *cross-session*: writers commit increasing values to their rows directly on the primary and post
                  each value once its commit returned; readers on other connections, through Sluice, then read
                  that row and must see at least that value. Promised by `global`.
                - *token handoff*: connection A updates its row and asks `SELECT sluice_last_gtid()`; connection B
                  (another Sluice session that wrote nothing) reads with `/*CONSISTENT_WITH=<gtid>*/`. Promised at
                  every level (hints override levels). Every other iteration B reads without the token instead:
                  the *notes* column counts how many of those were stale.

                Columns: *on replicas*: checked reads answered by a `@@server_id` other than the primary's.
                *read p50/p99*: latency of the checked read alone. *added*: minus `eventual`'s, same check, same
                phase. *primary q/s beyond writes*: the primary's `Questions` over the measured part minus its
                `Com_update` (the checker's writes), per second: Sluice's monitor, reads run on the primary,
                `global`'s position questions; in parentheses, minus `eventual`'s. *load*: the machine's
                one-minute load average at the end of the run. *Sluice waited*: its consistency waits on the
                endpoint (metric `sluice_consistency_wait_seconds`): reached on a replica, or timed out (then
                the read ran on the primary).
                """);
        if (options.sluiceConfig().isPresent()) {
            md.append("\nSluice configuration (`java -jar sluice-server/target/sluice.jar run --config FILE`):\n\n")
                    .append("```yaml\n").append(Files.readString(options.sluiceConfig().get()).strip())
                    .append("\n```\n");
        }
        return md.append('\n').toString();
    }

    private String runBlock() {
        StringBuilder md = new StringBuilder();
        md.append("### ").append(options.label()).append("\n\n");
        md.append("Measured ").append(ZonedDateTime.now(ZoneOffset.UTC).format(WHEN)).append(": ")
                .append(options.sessions()).append(" sessions per run, each on its own connection(s); ")
                .append(seconds(options.warmup())).append(" s unmeasured warm-up, then ")
                .append(seconds(options.duration())).append(" s measured")
                .append(options.replicaDelay().isPresent() ? " (" + seconds(options.slowedDuration())
                        + " s while slowed)" : "")
                .append("; cross-session: ").append(options.writers()).append(" writers on the primary, ")
                .append(options.writerRate() == 0 ? "as fast as they can" : options.writerRate() + " commits/s each")
                .append(". Runs one after another, each check against each level's endpoint.\n\n");
        md.append("Findings:\n\n");
        for (String line : new Verdict(phases).findings()) {
            md.append("- ").append(line).append('\n');
        }
        for (PhaseResult phase : phases) {
            md.append("\n#### ").append(phase.title()).append("\n\n");
            table(md, phase);
            examples(md, phase);
        }
        String launcher = System.getenv(LAUNCHER_COMMAND);
        if (launcher != null && !launcher.isBlank()) {
            md.append("\nCommand:\n\n```sh\n").append(launcher.strip()).append("\n```\n\nwhich started the sandbox and")
                    .append(" Sluice, then ran:\n\n```sh\n");
        } else {
            md.append("\nCommand (the sandbox and Sluice already running):\n\n```sh\n");
        }
        md.append("java -cp sluice-bench/target/benchmarks.jar ").append(MAIN_CLASS);
        List<String> args = options.arguments();
        for (int i = 0; i < args.size(); i++) {
            md.append(" \\\n  ").append(shellQuoted(args.get(i)));
            if (args.get(i).startsWith("--") && i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
                md.append(' ').append(shellQuoted(args.get(++i)));
            }
        }
        return md.append("\n```\n").toString();
    }

    private static void table(StringBuilder md, PhaseResult phase) {
        md.append(row(ResultColumns.HEADER)).append('\n');
        md.append(ResultColumns.HEADER.stream().map(h -> isNumeric(h) ? "--:" : "---")
                .collect(Collectors.joining("|", "|", "|"))).append('\n');
        for (List<String> cells : ResultColumns.rows(phase)) {
            md.append(row(cells)).append('\n');
        }
    }

    private static void examples(StringBuilder md, PhaseResult phase) {
        boolean any = false;
        for (WorkloadResult r : phase.results()) {
            List<String> stale = r.examples().stream().limit(Verdict.EXAMPLES_SHOWN).map(Violation::toString).toList();
            List<String> errors = r.errorMessages().stream().limit(Verdict.EXAMPLES_SHOWN).toList();
            if (stale.isEmpty() && errors.isEmpty()) {
                continue;
            }
            if (!any) {
                md.append("\nExamples:\n\n");
                any = true;
            }
            String where = r.mode().description() + " at `" + r.level().configName() + "`";
            stale.forEach(l -> md.append("- stale, ").append(where).append(": ").append(l).append('\n'));
            errors.forEach(e -> md.append("- error, ").append(where).append(": `").append(e.replace('`', '\''))
                    .append("`\n"));
        }
    }

    private static boolean isNumeric(String header) {
        return !List.of("check", "level", "promised", "added p50 / p99 ms", "notes").contains(header);
    }

    private static String row(List<String> cells) {
        return cells.stream().map(c -> c.replace("|", "\\|")).collect(Collectors.joining(" | ", "| ", " |"));
    }

    private static long seconds(Duration d) {
        return d.toSeconds();
    }

    private static String shellQuoted(String arg) {
        if (arg.matches("[A-Za-z0-9_./:=,@%+-]+")) {
            return arg;
        }
        if (!arg.contains("'")) {
            return "'" + arg + "'";
        }
        if (!arg.matches(".*[\"$`\\\\!].*")) {
            return '"' + arg + '"';
        }
        return "'" + arg.replace("'", "'\\''") + "'";
    }
}
