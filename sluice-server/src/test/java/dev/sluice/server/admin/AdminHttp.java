package dev.sluice.server.admin;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/** A {@link HttpClient} pointed at an admin server, for the tests. */
final class AdminHttp {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(TIMEOUT).build();
    private final String base;

    AdminHttp(InetSocketAddress address) {
        this.base = "http://" + address.getHostString() + ":" + address.getPort();
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return send("GET", path, null, null);
    }

    HttpResponse<String> send(String method, String path, String body, String authorization)
            throws IOException, InterruptedException {
        return send(method, path, body, authorization, Map.of());
    }

    HttpResponse<String> send(String method, String path, String body, String authorization,
            Map<String, String> headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(TIMEOUT)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(b::header);
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
