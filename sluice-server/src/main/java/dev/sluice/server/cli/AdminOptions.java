package dev.sluice.server.cli;

import java.net.URI;
import picocli.CommandLine.Option;

/** Where the admin API is and how to authenticate: shared by every command that talks to it. */
final class AdminOptions {
    @Option(names = "--admin", paramLabel = "URL", defaultValue = "${env:SLUICE_ADMIN:-http://127.0.0.1:8033}",
            description = "Admin API address (env SLUICE_ADMIN; default: ${DEFAULT-VALUE})")
    String admin;

    @Option(names = "--token", paramLabel = "TOKEN", defaultValue = "${env:SLUICE_ADMIN_TOKEN}",
            description = "Admin token (admin.token) for changes (env SLUICE_ADMIN_TOKEN)")
    String token;

    @Option(names = "--json", description = "Print the API's JSON as it is instead of tables")
    boolean json;

    /** The base URI; {@code host:port} alone means plain HTTP. */
    URI baseUri() {
        String a = admin.trim();
        if (!a.contains("://")) {
            a = "http://" + a;
        }
        while (a.endsWith("/")) {
            a = a.substring(0, a.length() - 1);
        }
        return URI.create(a);
    }

    AdminClient client() {
        return new AdminClient(baseUri(), token);
    }
}
