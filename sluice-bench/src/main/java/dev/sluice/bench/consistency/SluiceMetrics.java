package dev.sluice.bench.consistency;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads Sluice's Prometheus endpoint ({@code --sluice-metrics}) for its consistency waits. Optional
 * and best effort: the checker judges Sluice from the outside, and these figures only explain what
 * it measured (why reads went to the primary). Endpoints are looked up by the level's name, as
 * {@code consistency-check.sh} names them.
 */
final class SluiceMetrics {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final Pattern WAIT_LINE = Pattern.compile(
            "sluice_consistency_wait_seconds_(count|sum)\\{endpoint=\"([^\"]+)\",outcome=\"([^\"]+)\"} (\\S+)");
    private static final String REACHED = "ok";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    private final URI uri;

    SluiceMetrics(String url) {
        this.uri = URI.create(url);
    }

    /** The wait counters of {@code endpoint} now; empty when Sluice cannot be asked. */
    Optional<ConsistencyWaits> waits(String endpoint) {
        String body;
        try {
            HttpRequest request = HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build();
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                return Optional.empty();
            }
            body = response.body();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
        long reached = 0;
        double reachedSeconds = 0;
        long timedOut = 0;
        double timedOutSeconds = 0;
        for (String line : body.split("\n")) {
            Matcher m = WAIT_LINE.matcher(line);
            if (!m.matches() || !m.group(2).equals(endpoint)) {
                continue;
            }
            boolean count = m.group(1).equals("count");
            double value = Double.parseDouble(m.group(4));
            if (m.group(3).equals(REACHED)) {
                if (count) {
                    reached += (long) value;
                } else {
                    reachedSeconds += value;
                }
            } else if (count) {
                timedOut += (long) value;
            } else {
                timedOutSeconds += value;
            }
        }
        return Optional.of(new ConsistencyWaits(reached, reachedSeconds, timedOut, timedOutSeconds));
    }
}
