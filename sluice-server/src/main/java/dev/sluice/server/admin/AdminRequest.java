package dev.sluice.server.admin;

import io.netty.handler.codec.http.QueryStringDecoder;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An admin request as the routes see it: the method, the path as decoded segments (so that a name
 * with an encoded {@code /} in it is still one segment), the query, the bearer credentials and the
 * body.
 *
 * @param method HTTP method, upper case
 * @param path decoded path segments; empty for {@code /}
 * @param query decoded query parameters
 * @param authorization the {@code Authorization} header, or null
 * @param origin the {@code Origin} header (sent by browsers), or null
 * @param host the {@code Host} header, or null
 * @param body the request body (empty for none)
 */
record AdminRequest(String method, List<String> path, Map<String, List<String>> query, String authorization,
        String origin, String host, byte[] body) {

    /** Parses the request target; a malformed one (bad percent-encoding) is a 400. */
    static AdminRequest of(String method, String uri, String authorization, String origin, String host,
            byte[] body) {
        QueryStringDecoder decoder;
        List<String> segments = new ArrayList<>();
        try {
            decoder = new QueryStringDecoder(uri);
            for (String raw : decoder.rawPath().split("/")) {
                if (!raw.isEmpty()) {
                    segments.add(QueryStringDecoder.decodeComponent(raw));
                }
            }
            return new AdminRequest(method, List.copyOf(segments), decoder.parameters(), authorization, origin, host,
                    body);
        } catch (IllegalArgumentException e) {
            throw new AdminException(AdminException.BAD_REQUEST, "the request path cannot be decoded: "
                    + e.getMessage());
        }
    }

    /** GET reads; everything else changes something and needs the token. */
    boolean isRead() {
        return method.equals("GET");
    }

    /**
     * Whether a browser sent this from a page of another origin. Browsers send {@code Origin} with
     * every cross-origin POST, and a plain HTML form or a {@code text/plain} fetch needs no CORS
     * preflight: without this check any web page the operator opens could drain a node of a proxy
     * whose admin API has no token. The CLI and curl send no {@code Origin}.
     */
    boolean isCrossOrigin() {
        if (origin == null) {
            return false;
        }
        try {
            URI o = URI.create(origin.trim());
            String authority = o.getRawAuthority();
            return authority == null || host == null || !authority.equalsIgnoreCase(host.trim());
        } catch (IllegalArgumentException e) {
            return true;
        }
    }

    /** The single value of a query parameter, or null when it is absent. */
    String parameter(String name) {
        List<String> values = query.get(name);
        if (values == null || values.isEmpty()) {
            return null;
        }
        if (values.size() > 1) {
            throw new AdminException(AdminException.BAD_REQUEST, "query parameter '" + name + "' is given "
                    + values.size() + " times");
        }
        return values.get(0);
    }
}
