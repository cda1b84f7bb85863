package dev.sluice.it.support;

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
public final class AdminClient {
    public static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final HttpClient http;
    private final Duration timeout;
    private final String base;
    private final String token;

    /** One answer: its status and body. */
    public record Reply(int status, String body) {
        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON: " + body, e);
            }
        }

        /** The {@code error} message of a refusal. */
        public String error() {
            JsonNode e = json().get("error");
            assertThat(e).as("a refusal carries {\"error\": …}: " + body).isNotNull();
            return e.asText();
        }
    }

    /**
     * {@code timeout} bounds the connect and each request; a cluster-mode change may wait for etcd
     * and for its own instance to run it, longer than a single instance's.
     */
    public AdminClient(InetSocketAddress admin, String token, Duration timeout) {
        this.base = "http://127.0.0.1:" + admin.getPort();
        this.token = token;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    public AdminClient(InetSocketAddress admin, String token) {
        this(admin, token, TIMEOUT);
    }

    public AdminClient(InetSocketAddress admin) {
        this(admin, "");
    }

    public String base() {
        return base;
    }

    public Reply get(String path) {
        return send("GET", path, null, token);
    }

    public Reply patch(String path, String json) {
        return send("PATCH", path, json, token);
    }

    public Reply post(String path, String json) {
        return send("POST", path, json, token);
    }

    public Reply delete(String path) {
        return send("DELETE", path, null, token);
    }

    /** Any request; {@code bearer} empty sends no Authorization header. */
    public Reply send(String method, String path, String json, String bearer) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout)
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
    public JsonNode describe() {
        Reply r = get("/v1/proxy");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json();
    }

    /** DescribeDBProxy without the parts that move on their own (uptime, lag, GTID, state, load counters). */
    public JsonNode topology() {
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
    public JsonNode node(String name) {
        for (JsonNode n : describe().get("nodes")) {
            if (n.get("name").asText().equals(name)) {
                return n;
            }
        }
        return null;
    }

    /** Sessions of {@code endpoint} holding a connection to {@code node} (0 when the node is gone or unused). */
    public int activeSessions(String node, String endpoint) {
        JsonNode n = node(node);
        JsonNode load = n == null ? null : n.get("endpoints").get(endpoint);
        return load == null ? 0 : load.get("activeSessions").asInt();
    }

    /** Statements of {@code endpoint} routed to {@code node} so far. */
    public long statements(String node, String endpoint) {
        JsonNode n = node(node);
        JsonNode load = n == null ? null : n.get("endpoints").get(endpoint);
        return load == null ? 0 : load.get("statements").asLong();
    }

    /** The endpoint's settings (DescribeDBProxyEndpoint), which must answer 200. */
    public JsonNode endpoint(String name) {
        Reply r = get("/v1/endpoints/" + name);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json();
    }

    /** A change that must succeed (2xx). */
    public Reply ok(Reply r) {
        assertThat(r.status()).as(r.body()).isBetween(200, 299);
        return r;
    }
}
