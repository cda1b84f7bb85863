package dev.sluice.server.admin;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * What the admin API answers, before it becomes HTTP: kept free of Netty so that the routes are
 * plain functions from request to response and no buffer is allocated until the answer is final.
 *
 * @param status HTTP status code
 * @param contentType the Content-Type, or null when there is no body
 * @param body the body (empty for none)
 * @param headers further headers (e.g. {@code Allow} on a 405)
 */
record AdminResponse(int status, String contentType, byte[] body, Map<String, String> headers) {
    static final int OK = 200;
    static final int CREATED = 201;
    static final int NO_CONTENT = 204;
    static final int UNAUTHORIZED = 401;
    static final int FORBIDDEN = 403;
    static final int METHOD_NOT_ALLOWED = 405;
    static final int INTERNAL_ERROR = 500;
    static final String JSON = "application/json; charset=utf-8";

    AdminResponse {
        headers = Map.copyOf(headers);
    }

    static AdminResponse json(int status, Object value) {
        return new AdminResponse(status, JSON, AdminJson.bytes(value), Map.of());
    }

    static AdminResponse noContent() {
        return new AdminResponse(NO_CONTENT, null, new byte[0], Map.of());
    }

    static AdminResponse text(String contentType, String text) {
        return new AdminResponse(OK, contentType, text.getBytes(StandardCharsets.UTF_8), Map.of());
    }

    /** {@code {"error": message}}: every refusal has this one shape, so clients print {@code error} verbatim. */
    static AdminResponse error(int status, String message) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("error", message);
        return json(status, o);
    }

    AdminResponse withHeader(String name, String value) {
        Map<String, String> h = new HashMap<>(headers);
        h.put(name, value);
        return new AdminResponse(status, contentType, body, h);
    }
}
