package dev.sluice.server.cli;

import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code remove-endpoint NAME}: the endpoint stops accepting; its sessions finish. */
@Command(name = "remove-endpoint", mixinStandardHelpOptions = true,
        description = "Remove an endpoint: it stops accepting connections; its sessions finish")
final class RemoveEndpointCommand extends AdminCommand {
    @Parameters(paramLabel = "NAME", description = "Endpoint name")
    String name;

    @Option(names = "--persist", description = "Also write the running configuration back to its file")
    boolean persist;

    @Override
    void run(AdminClient client, PrintWriter out) throws AdminCallException, AdminUnreachableException {
        String body = client.send("DELETE", "/v1/endpoints/" + AdminClient.segment(name), null, persist);
        if (!printedRaw(body, out)) {
            out.println("endpoint '" + name + "' removed: it accepts no new connections, its sessions finish"
                    + (persist ? "; saved to the configuration file" : ""));
        }
    }
}
