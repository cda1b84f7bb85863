package dev.sluice.it.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.it.support.SluiceHarness;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** What a running Sluice says about its nodes through the admin API (DescribeDBProxy). */
final class AdminView {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

    private AdminView() {
    }

    static JsonNode describeProxy(SluiceHarness sluice) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + sluice.adminAddress().getPort() + "/v1/proxy")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    /** How the endpoint uses the node: weight, readable, activeSessions, activeRequests, statements. */
    static JsonNode load(JsonNode proxy, String node, String endpoint) {
        for (JsonNode n : proxy.get("nodes")) {
            if (n.get("name").asText().equals(node)) {
                JsonNode load = n.get("endpoints").get(endpoint);
                assertThat(load).as("endpoint " + endpoint + " on node " + node + ": " + n).isNotNull();
                return load;
            }
        }
        throw new AssertionError("no node " + node + " in " + proxy);
    }

    /**
     * Waits until the endpoint may read from each of the replicas. Sluice starts listening after
     * the monitor's first round or its timeout: on a busy machine a test could otherwise begin
     * while the replicas are still unknown and its reads, rightly, go to the primary.
     */
    static void awaitReadable(SluiceHarness sluice, String endpoint, String... replicas) {
        await("replicas " + String.join(", ", replicas) + " readable for endpoint " + endpoint)
                .atMost(READY_TIMEOUT).pollInterval(Duration.ofMillis(100)).until(() -> {
                    JsonNode proxy = describeProxy(sluice);
                    for (String r : replicas) {
                        if (!load(proxy, r, endpoint).get("readable").asBoolean()) {
                            return false;
                        }
                    }
                    return true;
                });
    }
}
