package dev.sluice.server.admin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.server.config.ConfigException;
import dev.sluice.server.digest.DigestOrder;
import dev.sluice.server.digest.DigestSummary;
import dev.sluice.server.history.RecentHistory;
import dev.sluice.server.metrics.SluiceMetrics;
import java.util.LinkedHashMap;
import dev.sluice.server.switchover.SwitchoverException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The routes of the admin API, as a function from request to response (the Netty side is
 * {@link AdminRequestHandler}):
 *
 * <pre>
 * GET    /                          dashboard (and /dashboard.js, /dashboard.css)
 * GET    /metrics                   Prometheus text format 0.0.4
 * GET    /v1/proxy                  DescribeDBProxy
 * POST   /v1/endpoints              add an endpoint (its full settings)
 * GET    /v1/endpoints/{name}       DescribeDBProxyEndpoint
 * PATCH  /v1/endpoints/{name}       ModifyDBProxyEndpoint (a JSON object of settings)
 * DELETE /v1/endpoints/{name}       remove an endpoint
 * POST   /v1/nodes                  add a node
 * GET    /v1/nodes/{name}           one node of DescribeDBProxy
 * DELETE /v1/nodes/{name}           remove a node
 * POST   /v1/nodes/{name}/drain     move sessions off a node
 * GET    /v1/history                the last 15 minutes of the dashboard's charts
 * GET    /v1/digests                query digests (?endpoint=, ?order=total|count|p99, ?limit=)
 * DELETE /v1/digests                forget the query digests
 * POST   /v1/switchover             planned switchover, body {"to": NODE} optional (answered when done)
 * POST   /v1/failover               failover from a primary that is gone, body {"to": NODE} optional (likewise)
 * </pre>
 *
 * Changes (every method but GET) need the bearer token when {@code admin.token} is set, and are
 * refused with 403 when a browser sends them from a page of another origin (see
 * {@link AdminRequest#isCrossOrigin()}). Changes take {@code ?persist=true} (the CLI's
 * {@code --persist}): after the change succeeded the running configuration is written back to
 * its file. Every refusal is {@code {"error": "…"}} with the status of the {@link AdminException},
 * 400 for a {@link ConfigException}, and 500 for anything unexpected (logged) — a failing
 * operation answers, it never takes the admin server down.
 */
final class AdminApi {
    private static final Logger LOG = LoggerFactory.getLogger(AdminApi.class);
    private static final String V1 = "v1";
    /** Rows of {@code GET /v1/digests} when no limit is given: a screenful and then some. */
    private static final int DEFAULT_DIGEST_LIMIT = 100;
    private static final String ENDPOINT_EXAMPLE = "{\"name\": \"reports\", \"listen\": \"127.0.0.1:6035\", "
            + "\"mode\": \"read-only\"}";
    private static final String SETTINGS_EXAMPLE = "{\"weights\": {\"ro1\": 0}}";
    private static final String SWITCHOVER_EXAMPLE = "{\"to\": \"ro1\"}";
    private static final String NODE_EXAMPLE = "{\"name\": \"ro3\", \"address\": \"127.0.0.1:3314\", "
            + "\"role\": \"replica\"}";

    private final ProxyControl control;
    private final SluiceMetrics metrics;
    private final RecentHistory history;
    private final Dashboard dashboard;
    private final BearerToken token;

    AdminApi(ProxyControl control, SluiceMetrics metrics, RecentHistory history, Dashboard dashboard,
            BearerToken token) {
        this.control = control;
        this.metrics = metrics;
        this.history = history;
        this.dashboard = dashboard;
        this.token = token;
    }

    AdminResponse handle(String method, String uri, String authorization, String origin, String host,
            byte[] body) {
        try {
            AdminRequest r = AdminRequest.of(method, uri, authorization, origin, host, body);
            Optional<AdminResponse> refused = refusal(r);
            if (refused.isPresent()) {
                return refused.get();
            }
            return route(r);
        } catch (AdminException e) {
            return AdminResponse.error(e.status(), e.getMessage());
        } catch (ConfigException e) {
            return AdminResponse.error(AdminException.BAD_REQUEST, e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("admin request {} {} failed", method, uri, e);
            return AdminResponse.error(AdminResponse.INTERNAL_ERROR, "internal error (see the Sluice log): " + e);
        }
    }

    /** A change from another origin, or without the token, is refused before it is looked at. */
    private Optional<AdminResponse> refusal(AdminRequest r) {
        if (!r.isRead() && r.isCrossOrigin()) {
            return Optional.of(AdminResponse.error(AdminResponse.FORBIDDEN, "a change sent by a web page of another "
                    + "origin (" + r.origin() + ") is refused; use the CLI or curl"));
        }
        if (!r.isRead() && !token.admits(r.authorization())) {
            return Optional.of(AdminResponse.error(AdminResponse.UNAUTHORIZED,
                    "this change needs the admin token: send Authorization: Bearer <admin.token>")
                    .withHeader("WWW-Authenticate", "Bearer realm=\"sluice\""));
        }
        return Optional.empty();
    }

    /**
     * As {@link #handle}, for every request: {@code POST /v1/switchover} is answered once the
     * switchover is over (seconds), without blocking the admin server's thread meanwhile.
     */
    CompletableFuture<AdminResponse> handleAsync(String method, String uri, String authorization, String origin,
            String host, byte[] body) {
        AdminRequest r;
        try {
            r = AdminRequest.of(method, uri, authorization, origin, host, body);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(handle(method, uri, authorization, origin, host, body));
        }
        boolean failover = r.path().equals(List.of(V1, "failover"));
        if (!r.path().equals(List.of(V1, "switchover")) && !failover) {
            return CompletableFuture.completedFuture(handle(method, uri, authorization, origin, host, body));
        }
        try {
            Optional<AdminResponse> refused = refusal(r);
            if (refused.isPresent()) {
                return CompletableFuture.completedFuture(refused.get());
            }
            if (!r.method().equals("POST")) {
                return CompletableFuture.completedFuture(on(r, Map.of("POST", () -> notFound(r))));
            }
            Optional<String> to = switchoverTarget(r.body());
            return (failover ? control.failover(to) : control.switchover(to)).handle((outcome, error) -> error == null
                    ? AdminResponse.json(AdminResponse.OK, outcome) : switchoverFailed(failover ? "failover" : "switchover",
                    error));
        } catch (AdminException e) {
            return CompletableFuture.completedFuture(AdminResponse.error(e.status(), e.getMessage()));
        }
    }

    /** {@code {"to": NODE}}, or nothing: the most advanced healthy replica. */
    private static Optional<String> switchoverTarget(byte[] body) {
        if (body.length == 0) {
            return Optional.empty();
        }
        JsonNode o = AdminJson.object(body, SWITCHOVER_EXAMPLE);
        JsonNode to = o.get("to");
        if (to == null || to.isNull()) {
            return Optional.empty();
        }
        if (!to.isTextual() || to.asText().isBlank()) {
            throw new AdminException(AdminException.BAD_REQUEST, "to: the name of a node, e.g. " + SWITCHOVER_EXAMPLE);
        }
        return Optional.of(to.asText());
    }

    private static AdminResponse switchoverFailed(String what, Throwable error) {
        Throwable e = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause() : error;
        if (e instanceof SwitchoverException s) {
            // 409 either way: refused as the cluster is, or called off because of what it did meanwhile.
            return AdminResponse.error(AdminException.CONFLICT, s.getMessage());
        }
        LOG.error("{} failed", what, e);
        return AdminResponse.error(AdminResponse.INTERNAL_ERROR, what + " failed inside Sluice (see the Sluice "
                + "log): " + e);
    }

    private AdminResponse route(AdminRequest r) {
        List<String> p = r.path();
        if (p.size() <= 1) {
            String name = p.isEmpty() ? "" : p.get(0);
            if (name.equals("metrics")) {
                return on(r, Map.of("GET", () -> AdminResponse.text(SluiceMetrics.CONTENT_TYPE, metrics.scrape())));
            }
            return dashboard.asset(name)
                    .map(a -> on(r, Map.of("GET", () -> new AdminResponse(AdminResponse.OK, a.contentType(),
                            a.content(), Map.of("Content-Security-Policy", "default-src 'self'")))))
                    .orElseGet(() -> notFound(r));
        }
        if (!p.get(0).equals(V1)) {
            return notFound(r);
        }
        String collection = p.get(1);
        return switch (p.size()) {
            case 2 -> switch (collection) {
                case "proxy" -> on(r, Map.of("GET", () -> AdminResponse.json(AdminResponse.OK, control.describe())));
                case "digests" -> digests(r);
                case "history" -> on(r, Map.of("GET", () -> AdminResponse.json(AdminResponse.OK, history.report())));
                case "endpoints" -> on(r, Map.of("POST", () -> change(r, () -> AdminResponse.json(
                        AdminResponse.CREATED, control.addEndpoint(AdminJson.object(r.body(), ENDPOINT_EXAMPLE))))));
                case "nodes" -> on(r, Map.of("POST", () -> change(r, () -> AdminResponse.json(
                        AdminResponse.CREATED, control.addNode(AdminJson.object(r.body(), NODE_EXAMPLE))))));
                default -> notFound(r);
            };
            case 3 -> switch (collection) {
                case "endpoints" -> endpoint(r, p.get(2));
                case "nodes" -> node(r, p.get(2));
                default -> notFound(r);
            };
            case 4 -> collection.equals("nodes") && p.get(3).equals("drain")
                    ? on(r, Map.of("POST", () -> change(r, () -> AdminResponse.json(AdminResponse.OK,
                            control.drainNode(p.get(2))))))
                    : notFound(r);
            default -> notFound(r);
        };
    }

    private AdminResponse endpoint(AdminRequest r, String name) {
        Map<String, Supplier<AdminResponse>> methods = new LinkedHashMap<>();
        methods.put("GET", () -> AdminResponse.json(AdminResponse.OK, control.describeEndpoint(name)
                .orElseThrow(() -> unknownEndpoint(name))));
        methods.put("PATCH", () -> change(r, () -> {
            JsonNode changes = AdminJson.object(r.body(), SETTINGS_EXAMPLE);
            return AdminResponse.json(AdminResponse.OK, control.modifyEndpoint(name, changes));
        }));
        methods.put("DELETE", () -> change(r, () -> {
            control.removeEndpoint(name);
            return AdminResponse.noContent();
        }));
        return on(r, methods);
    }

    private AdminResponse node(AdminRequest r, String name) {
        Map<String, Supplier<AdminResponse>> methods = new LinkedHashMap<>();
        methods.put("GET", () -> AdminResponse.json(AdminResponse.OK, control.describe().nodes().stream()
                .filter(n -> n.name().equals(name)).findFirst().orElseThrow(() -> unknownNode(name))));
        methods.put("DELETE", () -> change(r, () -> {
            control.removeNode(name);
            return AdminResponse.noContent();
        }));
        return on(r, methods);
    }

    /** BEHAVIOUR §12: the query digests, most costly first, and forgetting them. */
    private AdminResponse digests(AdminRequest r) {
        Map<String, Supplier<AdminResponse>> methods = new LinkedHashMap<>();
        methods.put("GET", () -> {
            if (!control.digests().collecting()) {
                throw new AdminException(AdminException.CONFLICT, "query digests are off: this Sluice was started "
                        + "with query-digests: false. Remove that line (or set it to true) and restart Sluice to "
                        + "count statements by digest; the latency histograms in /metrics count them either way");
            }
            Optional<String> endpoint = Optional.ofNullable(r.parameter("endpoint")).filter(e -> !e.isEmpty());
            endpoint.ifPresent(e -> control.describeEndpoint(e).orElseThrow(() -> unknownEndpoint(e)));
            DigestOrder order = digestOrder(r.parameter("order"));
            int limit = digestLimit(r.parameter("limit"));
            return AdminResponse.json(AdminResponse.OK, new DigestReport(order.name().toLowerCase(Locale.ROOT),
                    control.digests().top(endpoint, order, limit)));
        });
        methods.put("DELETE", () -> change(r, () -> {
            control.digests().clear();
            return AdminResponse.noContent();
        }));
        return on(r, methods);
    }

    /** {@code GET /v1/digests}: the order asked for and the rows. */
    record DigestReport(String order, List<DigestSummary> digests) {
    }

    private static DigestOrder digestOrder(String value) {
        if (value == null || value.isEmpty()) {
            return DigestOrder.TOTAL;
        }
        for (DigestOrder o : DigestOrder.values()) {
            if (o.name().equalsIgnoreCase(value)) {
                return o;
            }
        }
        throw new AdminException(AdminException.BAD_REQUEST, "order: '" + value + "' must be total, count or p99");
    }

    private static int digestLimit(String value) {
        if (value == null || value.isEmpty()) {
            return DEFAULT_DIGEST_LIMIT;
        }
        try {
            int limit = Integer.parseInt(value);
            if (limit > 0) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new AdminException(AdminException.BAD_REQUEST, "limit: '" + value + "' must be a positive number");
    }

    /** Runs the handler for the request's method, or answers 405 with the methods the path has. */
    private static AdminResponse on(AdminRequest r, Map<String, Supplier<AdminResponse>> methods) {
        Supplier<AdminResponse> handler = methods.get(r.method());
        if (handler == null) {
            String allowed = String.join(", ", methods.keySet());
            return AdminResponse.error(AdminResponse.METHOD_NOT_ALLOWED, r.method() + " is not allowed on /"
                    + String.join("/", r.path()) + "; allowed: " + allowed).withHeader("Allow", allowed);
        }
        return handler.get();
    }

    /**
     * A change, then {@code persist()} when {@code ?persist=true} asks for it. The flag is checked
     * before the change so that a typo in it cannot leave a change applied but unsaved by surprise.
     */
    private AdminResponse change(AdminRequest r, Supplier<AdminResponse> change) {
        boolean persist = persistFlag(r);
        AdminResponse done = change.get();
        if (persist) {
            try {
                control.persist();
            } catch (AdminException e) {
                throw new AdminException(e.status(), "the change is applied but was not written to the "
                        + "configuration file: " + e.getMessage());
            } catch (RuntimeException e) {
                LOG.error("persisting the configuration failed", e);
                throw new AdminException(AdminResponse.INTERNAL_ERROR, "the change is applied but was not written "
                        + "to the configuration file: " + e);
            }
        }
        return done;
    }

    private static boolean persistFlag(AdminRequest r) {
        String v = r.parameter("persist");
        if (v == null || v.equals("false")) {
            return false;
        }
        if (v.equals("true")) {
            return true;
        }
        throw new AdminException(AdminException.BAD_REQUEST, "persist: '" + v + "' must be true or false");
    }

    private AdminException unknownEndpoint(String name) {
        return new AdminException(AdminException.NOT_FOUND, "no endpoint '" + name + "'; endpoints: "
                + control.describe().endpoints().stream().map(EndpointDescription::name)
                        .collect(Collectors.joining(", ")));
    }

    private AdminException unknownNode(String name) {
        return new AdminException(AdminException.NOT_FOUND, "no node '" + name + "'; nodes: "
                + control.describe().nodes().stream().map(NodeDescription::name).collect(Collectors.joining(", ")));
    }

    private static AdminResponse notFound(AdminRequest r) {
        return AdminResponse.error(AdminException.NOT_FOUND, "no such path: /" + String.join("/", r.path())
                + " (the API is under /v1/proxy, /v1/endpoints, /v1/nodes, /v1/history; metrics at /metrics)");
    }
}
