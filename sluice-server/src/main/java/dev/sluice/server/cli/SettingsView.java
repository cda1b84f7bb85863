package dev.sluice.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.Iterator;
import java.util.Map;

/**
 * An endpoint's settings (DescribeDBProxyEndpoint) as {@code key  value} lines, each value in
 * YAML flow form — {@code [primary, ro1]}, {@code {primary: 0, ro1: 100}} — which is exactly what
 * {@code modify-endpoint --set key=value} accepts back, so an operator can copy a line and edit it.
 */
final class SettingsView {
    private SettingsView() {
    }

    static void print(JsonNode settings, PrintWriter out) {
        int width = 0;
        for (Iterator<String> it = settings.fieldNames(); it.hasNext(); ) {
            width = Math.max(width, it.next().length());
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = settings.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            out.println(e.getKey() + " ".repeat(width - e.getKey().length() + 2) + flow(e.getValue()));
        }
    }

    static String flow(JsonNode v) {
        if (v.isObject()) {
            StringBuilder b = new StringBuilder("{");
            for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                b.append(e.getKey()).append(": ").append(flow(e.getValue())).append(it.hasNext() ? ", " : "");
            }
            return b.append('}').toString();
        }
        if (v.isArray()) {
            StringBuilder b = new StringBuilder("[");
            for (int i = 0; i < v.size(); i++) {
                b.append(i > 0 ? ", " : "").append(flow(v.get(i)));
            }
            return b.append(']').toString();
        }
        if (v.isTextual() && v.asText().isEmpty()) {
            return "\"\"";
        }
        return v.isNull() ? "null" : v.asText();
    }
}
