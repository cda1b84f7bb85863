package dev.sluice.it.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/**
 * The admin API as an operator's script calls it: real HTTP ({@link HttpClient}) against the
 * admin address of a running Sluice, with the bearer token when one is given.
 */
final class AdminClient {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    private final String base;
    private final String token;

    /** One answer: its status and body. */
    record Reply(int status, String body) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON: " + body, e);
            }
        }

        /** The {@code error} message of a refusal. */
        String error() {
            JsonNode e = json().get("error");
            assertThat(e).as("a refusal carries {\"error\": …}: " + body).isNotNull();
            return e.asText();
        }
    }

    AdminClient(InetSocketAddress admin, String token) {
        this.base = "http://127.0.0.1:" + admin.getPort();
        this.token = token;
    }

    AdminClient(InetSocketAddress admin) {
        this(admin, "");
    }

    String base() {
        return base;
    }

    Reply get(String path) {
        return send("GET", path, null, token);
    }

    Reply patch(String path, String json) {
        return send("PATCH", path, json, token);
    }

    Reply post(String path, String json) {
        return send("POST", path, json, token);
    }

    Reply delete(String path) {
        return send("DELETE", path, null, token);
    }

    /** Any request; {@code bearer} empty sends no Authorization header. */
    Reply send(String method, String path, String json, String bearer) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(TIMEOUT)
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(json));
        if (json != null) {
            b.header("Content-Type", "application/json");
        }
        if (!bearer.isEmpty()) {
            b.header("Authorization", "Bearer " + bearer);
        }
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Reply(r.statusCode(), r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** DescribeDBProxy, which must answer 200. */
    JsonNode describe() {
        Reply r = get("/v1/proxy");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json();
    }

    /** DescribeDBProxy without the parts that move on their own (uptime, lag, GTID, state, load counters). */
    JsonNode topology() {
        ObjectNode d = (ObjectNode) describe();
        d.remove("uptimeSeconds");
        for (JsonNode e : d.get("endpoints")) {
            ((ObjectNode) e).remove(List.of("activeSessions", "statements"));
        }
        for (JsonNode n : d.get("nodes")) {
            ((ObjectNode) n).remove(List.of("lagSeconds", "gtidPosition", "state", "replication", "readOnly"));
            for (JsonNode load : n.get("endpoints")) {
                ((ObjectNode) load).remove(List.of("activeSessions", "activeRequests", "statements", "readable"));
            }
        }
        return d;
    }

    /** One node of DescribeDBProxy, or null when it is not there. */
    JsonNode node(String name) {
        for (JsonNode n : describe().get("nodes")) {
            if (n.get("name").asText().equals(name)) {
                return n;
            }
        }
        return null;
    }

    /** Sessions of {@code endpoint} holding a connection to {@code node} (0 when the node is gone or unused). */
    int activeSessions(String node, String endpoint) {
        JsonNode n = node(node);
        JsonNode load = n == null ? null : n.get("endpoints").get(endpoint);
        return load == null ? 0 : load.get("activeSessions").asInt();
    }

    /** Statements of {@code endpoint} routed to {@code node} so far. */
    long statements(String node, String endpoint) {
        JsonNode n = node(node);
        JsonNode load = n == null ? null : n.get("endpoints").get(endpoint);
        return load == null ? 0 : load.get("statements").asLong();
    }

    /** The endpoint's settings (DescribeDBProxyEndpoint), which must answer 200. */
    JsonNode endpoint(String name) {
        Reply r = get("/v1/endpoints/" + name);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json();
    }

    /** A change that must succeed (2xx). */
    Reply ok(Reply r) {
        assertThat(r.status()).as(r.body()).isBetween(200, 299);
        return r;
    }
}
