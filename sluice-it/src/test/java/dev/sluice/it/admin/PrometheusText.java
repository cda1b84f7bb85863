package dev.sluice.it.admin;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A scrape of {@code /metrics} parsed as the Prometheus text format 0.0.4: one sample per line,
 * {@code name{label="value",…} number}, comments and blank lines skipped. A line that is neither
 * fails the parse, so a malformed exposition cannot pass unnoticed.
 */
public final class PrometheusText {
    private static final Pattern SAMPLE = Pattern.compile(
            "^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s+(\\S+)(?:\\s+-?\\d+)?$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\",?");

    /** One sample. */
    record Sample(String name, Map<String, String> labels, double value) {
    }

    private final List<Sample> samples;

    private PrometheusText(List<Sample> samples) {
        this.samples = samples;
    }

    public static PrometheusText parse(String text) {
        List<Sample> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            if (!m.matches()) {
                throw new IllegalArgumentException("not a Prometheus sample line: " + line);
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(2) != null) {
                Matcher l = LABEL.matcher(m.group(2));
                int end = 0;
                while (l.find() && l.start() == end) {
                    labels.put(l.group(1), l.group(2));
                    end = l.end();
                }
                if (end != m.group(2).length()) {
                    throw new IllegalArgumentException("malformed labels: " + line);
                }
            }
            out.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(3))));
        }
        return new PrometheusText(out);
    }

    /** Samples of {@code name} whose labels include every {@code key, value} pair given. */
    List<Sample> samples(String name, String... labelPairs) {
        List<Sample> out = new ArrayList<>();
        for (Sample s : samples) {
            if (s.name().equals(name) && matches(s.labels(), labelPairs)) {
                out.add(s);
            }
        }
        return out;
    }

    /** The sum of those samples (0 when there are none, as for a counter never incremented). */
    public double sum(String name, String... labelPairs) {
        return samples(name, labelPairs).stream().mapToDouble(Sample::value).sum();
    }

    /** The one sample of {@code name} with those labels; fails when there is none or several. */
    public double value(String name, String... labelPairs) {
        List<Sample> found = samples(name, labelPairs);
        if (found.size() != 1) {
            throw new AssertionError("expected one " + name + " " + List.of(labelPairs) + ", found " + found);
        }
        return found.get(0).value();
    }

    private static boolean matches(Map<String, String> labels, String[] pairs) {
        for (int i = 0; i + 1 < pairs.length; i += 2) {
            if (!pairs[i + 1].equals(labels.get(pairs[i]))) {
                return false;
            }
        }
        return true;
    }
}
