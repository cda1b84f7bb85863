package dev.sluice.server.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.server.admin.AdminJson;
import dev.sluice.server.digest.DigestSummary;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code top}: the query digests that cost the most (BEHAVIOUR §12, {@code GET /v1/digests}), as
 * a table redrawn every few seconds, like {@code top}; {@code --once} prints it once, for scripts.
 */
@Command(name = "top", mixinStandardHelpOptions = true,
        description = "Show the statements that cost the most (query digests), refreshed like top")
final class TopCommand extends AdminCommand {
    /** ANSI: cursor home, clear the screen. */
    private static final String CLEAR_SCREEN = "\033[H\033[2J";
    private static final double MICROS_PER_MILLI = 1_000.0;
    private static final double MILLIS_PER_SECOND = 1_000.0;
    /** Digest texts are cut to this many characters in the refreshing view, to keep rows on one line. */
    private static final int REFRESHING_DIGEST_CHARS = 100;

    @Option(names = "--endpoint", paramLabel = "NAME", description = "Only this endpoint's statements")
    String endpoint;

    @Option(names = "--order", paramLabel = "ORDER", defaultValue = "total",
            description = "total (time, the default), count or p99")
    String order;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "20", description = "Rows (default: ${DEFAULT-VALUE})")
    int limit;

    @Option(names = "--interval", paramLabel = "SECONDS", defaultValue = "2",
            description = "Seconds between refreshes (default: ${DEFAULT-VALUE})")
    double interval;

    @Option(names = "--once", description = "Print the table once and exit")
    boolean once;

    @Override
    void run(AdminClient client, PrintWriter out)
            throws AdminCallException, AdminUnreachableException, JsonProcessingException {
        String path = "/v1/digests?order=" + encode(order) + "&limit=" + limit
                + (endpoint == null ? "" : "&endpoint=" + encode(endpoint));
        if (once || options.json) {
            String body = client.get(path);
            if (!printedRaw(body, out)) {
                print(body, out, Integer.MAX_VALUE);
            }
            return;
        }
        while (!Thread.currentThread().isInterrupted()) {
            String body = client.get(path);
            out.print(CLEAR_SCREEN);
            out.println("sluice top — " + LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + ", by " + order
                    + (endpoint == null ? "" : ", endpoint " + endpoint) + ", every " + interval + "s (Ctrl-C quits)");
            out.println();
            print(body, out, REFRESHING_DIGEST_CHARS);
            out.flush();
            try {
                Thread.sleep((long) (interval * MILLIS_PER_SECOND));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void print(String body, PrintWriter out, int digestChars) throws JsonProcessingException {
        JsonNode digests = tree(body).path("digests");
        List<DigestSummary> rows = new ArrayList<>();
        for (JsonNode d : digests) {
            rows.add(AdminJson.MAPPER.treeToValue(d, DigestSummary.class));
        }
        if (rows.isEmpty()) {
            out.println("no statements counted yet");
            return;
        }
        TextTable table = new TextTable().right("COUNT").right("ERRORS").right("TOTAL_MS").right("MEAN_MS")
                .right("P99_MS").right("MAX_MS").right("ROWS").right("PRIMARY").right("REPLICAS").left("ENDPOINT")
                .left("ACCOUNT").left("SCHEMA").left("HINTS").left("DIGEST");
        for (DigestSummary s : rows) {
            String text = s.digest().length() > digestChars ? s.digest().substring(0, digestChars - 3) + "..."
                    : s.digest();
            table.row(s.count(), s.errors(), millis(s.totalMicros()), millis(s.meanMicros()), millis(s.p99Micros()),
                    millis(s.maxMicros()), s.rowsSent(), s.onPrimary(), s.onReplicas(), s.endpoint(),
                    dash(s.account()), dash(s.schema()), dash(s.hints()), text);
        }
        table.print(out);
    }

    private static String millis(long micros) {
        return String.format(Locale.ROOT, "%.3f", micros / MICROS_PER_MILLI);
    }

    private static String dash(String value) {
        return value == null || value.isEmpty() ? "-" : value;
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
