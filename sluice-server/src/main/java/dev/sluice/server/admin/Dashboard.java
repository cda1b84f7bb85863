package dev.sluice.server.admin;

import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The dashboard's files (plain HTML, JS and CSS from {@code resources/dashboard/}, no build
 * step), read once at start: a missing file is a packaging mistake and should stop the start,
 * not show up as a 404 when an operator needs the dashboard.
 */
final class Dashboard {
    private static final String FOLDER = "/dashboard/";
    private static final Map<String, String> FILES = Map.of(
            "index.html", "text/html; charset=utf-8",
            "dashboard.js", "text/javascript; charset=utf-8",
            "dashboard.css", "text/css; charset=utf-8");
    private static final String INDEX = "index.html";

    /** One file as served. */
    record Asset(String contentType, byte[] content) {
    }

    private final Map<String, Asset> assets;

    Dashboard() {
        Map<String, Asset> loaded = new HashMap<>();
        for (Map.Entry<String, String> f : FILES.entrySet()) {
            try (InputStream in = Dashboard.class.getResourceAsStream(FOLDER + f.getKey())) {
                if (in == null) {
                    throw new IllegalStateException("the dashboard file " + FOLDER + f.getKey()
                            + " is missing from the class path");
                }
                loaded.put(f.getKey(), new Asset(f.getValue(), in.readAllBytes()));
            } catch (IOException e) {
                throw new IllegalStateException("cannot read the dashboard file " + f.getKey(), e);
            }
        }
        this.assets = Map.copyOf(loaded);
    }

    /** The file for a request path's single segment; the empty segment ({@code GET /}) is the page. */
    Optional<Asset> asset(String name) {
        return Optional.ofNullable(assets.get(name.isEmpty() ? INDEX : name));
    }
}
