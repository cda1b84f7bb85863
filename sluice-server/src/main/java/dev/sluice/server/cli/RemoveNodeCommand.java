package dev.sluice.server.cli;

import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code remove-node NAME}: sessions that used the node move their later reads elsewhere, without an error. */
@Command(name = "remove-node", mixinStandardHelpOptions = true,
        description = "Remove a node; for a graceful decommission set its weight to 0 or drain it first")
final class RemoveNodeCommand extends AdminCommand {
    @Parameters(paramLabel = "NAME", description = "Node name")
    String name;

    @Option(names = "--persist", description = "Also write the running configuration back to its file")
    boolean persist;

    @Override
    void run(AdminClient client, PrintWriter out) throws AdminCallException, AdminUnreachableException {
        String body = client.send("DELETE", "/v1/nodes/" + AdminClient.segment(name), null, persist);
        if (!printedRaw(body, out)) {
            out.println("node '" + name + "' removed" + (persist ? "; saved to the configuration file" : ""));
        }
    }
}
