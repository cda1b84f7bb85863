package dev.sluice.server.admin;

import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The dashboard's files, read once at start: a missing file is a packaging mistake and should stop
 * the start, not show up as a 404 when an operator needs the dashboard. Sluice's own page is plain
 * HTML, JS and CSS from {@code resources/dashboard/}, no build step; the charting library, uPlot,
 * comes from its webjar on the class path (its version pinned in the parent pom), so the page loads
 * nothing from outside Sluice.
 */
final class Dashboard {
    private static final String FOLDER = "/dashboard/";
    private static final String JS = "text/javascript; charset=utf-8";
    private static final String CSS = "text/css; charset=utf-8";
    private static final Map<String, String> FILES = Map.of(
            "index.html", "text/html; charset=utf-8",
            "dashboard.js", JS,
            "charts.js", JS,
            "roles.js", JS,
            "dashboard.css", CSS);
    /** The webjar records its version here; its files live under a folder named after it. */
    private static final String UPLOT_POM = "/META-INF/maven/org.webjars.npm/uplot/pom.properties";
    private static final String UPLOT_FOLDER = "/META-INF/resources/webjars/uplot/%s/dist/";
    private static final Map<String, String> UPLOT_FILES = Map.of(
            "uPlot.iife.min.js", JS,
            "uPlot.min.css", CSS);
    private static final String INDEX = "index.html";

    /** One file as served. */
    record Asset(String contentType, byte[] content) {
    }

    private final Map<String, Asset> assets;

    Dashboard() {
        Map<String, Asset> loaded = new HashMap<>();
        FILES.forEach((name, type) -> loaded.put(name, new Asset(type, read(FOLDER + name))));
        String uplot = String.format(UPLOT_FOLDER, uplotVersion());
        UPLOT_FILES.forEach((name, type) -> loaded.put(name, new Asset(type, read(uplot + name))));
        this.assets = Map.copyOf(loaded);
    }

    private static String uplotVersion() {
        Properties p = new Properties();
        try (InputStream in = Dashboard.class.getResourceAsStream(UPLOT_POM)) {
            if (in == null) {
                throw new IllegalStateException("the dashboard's charting library (uPlot's webjar, " + UPLOT_POM
                        + ") is missing from the class path");
            }
            p.load(in);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + UPLOT_POM, e);
        }
        return p.getProperty("version");
    }

    private static byte[] read(String resource) {
        try (InputStream in = Dashboard.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("the dashboard file " + resource + " is missing from the class path");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the dashboard file " + resource, e);
        }
    }

    /** The file for a request path's single segment; the empty segment ({@code GET /}) is the page. */
    Optional<Asset> asset(String name) {
        return Optional.ofNullable(assets.get(name.isEmpty() ? INDEX : name));
    }
}
