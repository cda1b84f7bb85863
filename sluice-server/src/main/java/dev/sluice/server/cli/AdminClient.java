package dev.sluice.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.server.admin.AdminJson;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The CLI's side of the admin API over {@link HttpClient}. It speaks HTTP/1.1 only (the admin
 * server has no HTTP/2) and turns every answer into either the body of a success or an
 * {@link AdminCallException} carrying the server's {@code error} message.
 */
final class AdminClient {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** Adding an endpoint binds a port and a persist writes a file: allow more than a describe needs. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final int FIRST_ERROR_STATUS = 400;

    private final URI base;
    private final String token;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(CONNECT_TIMEOUT).build();

    AdminClient(URI base, String token) {
        this.base = base;
        this.token = token == null || token.isBlank() ? null : token.trim();
    }

    /** A path segment, percent-encoded (a name is one segment whatever it contains). */
    static String segment(String name) {
        return URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** {@code GET path}; the body of the success. */
    String get(String path) throws AdminCallException, AdminUnreachableException {
        return send("GET", path, null, false);
    }

    /** A change; {@code persist} adds {@code ?persist=true}. The body of the success (empty for 204). */
    String send(String method, String path, JsonNode body, boolean persist)
            throws AdminCallException, AdminUnreachableException {
        return send(method, path, body, persist, REQUEST_TIMEOUT);
    }

    /** As {@link #send(String, String, JsonNode, boolean)}, for a call that may take up to {@code timeout}. */
    String send(String method, String path, JsonNode body, boolean persist, Duration timeout)
            throws AdminCallException, AdminUnreachableException {
        URI uri = URI.create(base + path + (persist ? "?persist=true" : ""));
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(timeout)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(AdminJson.bytes(body)));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> response;
        try {
            response = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new AdminUnreachableException("cannot reach the admin API at " + base + " (" + why(e)
                    + "); is Sluice running there? Set --admin or SLUICE_ADMIN", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AdminUnreachableException("interrupted while waiting for the admin API", e);
        }
        if (response.statusCode() >= FIRST_ERROR_STATUS) {
            throw new AdminCallException(response.statusCode(), errorMessage(response));
        }
        return response.body();
    }

    private static String why(IOException e) {
        if (e instanceof ConnectException) {
            return "connection refused";
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    private static String errorMessage(HttpResponse<String> response) {
        try {
            JsonNode error = AdminJson.MAPPER.readTree(response.body()).get("error");
            if (error != null && error.isTextual()) {
                return error.asText();
            }
        } catch (IOException | RuntimeException e) {
            // Not the API's JSON (e.g. a proxy in between, or 413 from the HTTP layer): show what came.
        }
        String body = response.body() == null ? "" : response.body().strip();
        return "HTTP " + response.statusCode() + (body.isEmpty() ? "" : ": " + body);
    }
}
