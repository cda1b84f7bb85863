package dev.sluice.server.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain-text table with aligned columns, for terminals and for {@code grep}/{@code awk}: a
 * header in capitals, two spaces between columns, numbers right-aligned, no borders.
 */
final class TextTable {
    private static final String GAP = "  ";

    /** How a column aligns its cells. */
    enum Align { LEFT, RIGHT }

    private final List<String> headers = new ArrayList<>();
    private final List<Align> aligns = new ArrayList<>();
    private final List<List<String>> rows = new ArrayList<>();

    TextTable column(String header, Align align) {
        headers.add(header);
        aligns.add(align);
        return this;
    }

    TextTable left(String header) {
        return column(header, Align.LEFT);
    }

    TextTable right(String header) {
        return column(header, Align.RIGHT);
    }

    TextTable row(Object... cells) {
        if (cells.length != headers.size()) {
            throw new IllegalArgumentException("a row of " + cells.length + " cells in a table of "
                    + headers.size() + " columns");
        }
        List<String> r = new ArrayList<>(cells.length);
        for (Object c : cells) {
            r.add(c == null ? "-" : c.toString());
        }
        rows.add(r);
        return this;
    }

    void print(PrintWriter out) {
        int[] widths = new int[headers.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = headers.get(i).length();
            for (List<String> r : rows) {
                widths[i] = Math.max(widths[i], r.get(i).length());
            }
        }
        line(out, headers, widths);
        for (List<String> r : rows) {
            line(out, r, widths);
        }
    }

    private void line(PrintWriter out, List<String> cells, int[] widths) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            boolean last = i == cells.size() - 1;
            String c = cells.get(i);
            String pad = " ".repeat(widths[i] - c.length());
            if (aligns.get(i) == Align.RIGHT) {
                b.append(pad).append(c);
            } else {
                b.append(c).append(last ? "" : pad);
            }
            if (!last) {
                b.append(GAP);
            }
        }
        out.println(b);
    }
}
