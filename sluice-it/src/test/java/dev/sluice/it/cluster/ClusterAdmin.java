package dev.sluice.it.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** One instance's admin API over real HTTP, as an operator's script calls it. */
final class ClusterAdmin {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    private final String base;

    record Reply(int status, String body) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON: " + body, e);
            }
        }
    }

    ClusterAdmin(InetSocketAddress admin) {
        this.base = "http://127.0.0.1:" + admin.getPort();
    }

    Reply get(String path) {
        return send("GET", path, null);
    }

    Reply patch(String path, String json) {
        return send("PATCH", path, json);
    }

    Reply post(String path, String json) {
        return send("POST", path, json);
    }

    Reply delete(String path) {
        return send("DELETE", path, null);
    }

    /** An endpoint's settings, as DescribeDBProxyEndpoint answers them. */
    JsonNode endpoint(String name) {
        return get("/v1/endpoints/" + name).json();
    }

    private Reply send(String method, String path, String json) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(TIMEOUT)
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(json));
        if (json != null) {
            b.header("Content-Type", "application/json");
        }
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Reply(r.statusCode(), r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
