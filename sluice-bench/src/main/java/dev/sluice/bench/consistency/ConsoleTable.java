package dev.sluice.bench.consistency;

import java.io.PrintStream;
import java.util.List;

/** The results of a phase as an aligned plain-text table, for the person running the checker. */
final class ConsoleTable {
    private static final String GAP = "  ";

    private ConsoleTable() {
    }

    static void print(PrintStream out, PhaseResult phase) {
        List<List<String>> rows = ResultColumns.rows(phase);
        int[] widths = new int[ResultColumns.HEADER.size()];
        measure(widths, ResultColumns.HEADER);
        rows.forEach(r -> measure(widths, r));
        out.println();
        out.println("== " + phase.title() + " (" + phase.measured().toSeconds() + " s measured per run)");
        line(out, widths, ResultColumns.HEADER);
        rows.forEach(r -> line(out, widths, r));
        for (WorkloadResult r : phase.results()) {
            r.examples().stream().limit(Verdict.EXAMPLES_SHOWN).forEach(v ->
                    out.println("  stale (" + r.mode().description() + ", " + r.level().configName() + "): " + v));
            r.errorMessages().stream().limit(Verdict.EXAMPLES_SHOWN).forEach(e ->
                    out.println("  error (" + r.mode().description() + ", " + r.level().configName() + "): " + e));
        }
    }

    private static void measure(int[] widths, List<String> cells) {
        for (int i = 0; i < cells.size(); i++) {
            widths[i] = Math.max(widths[i], cells.get(i).length());
        }
    }

    private static void line(PrintStream out, int[] widths, List<String> cells) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            b.append(i == 0 ? "" : GAP).append(String.format("%-" + widths[i] + "s", cells.get(i)));
        }
        out.println(b.toString().stripTrailing());
    }
}
