package dev.sluice.server.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.sluice.server.admin.AdminJson;
import dev.sluice.server.admin.NodeDescription;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code drain-node NAME}: sessions leave the node at their next transaction boundary and new ones
 * avoid it. Prints how many sessions are on it now; {@code describe-proxy} shows them falling to 0.
 */
@Command(name = "drain-node", mixinStandardHelpOptions = true,
        description = "Move existing sessions off a node at their next transaction boundary; new sessions avoid it")
final class DrainNodeCommand extends AdminCommand {
    @Parameters(paramLabel = "NAME", description = "Node name")
    String name;

    @Option(names = "--persist", description = "Also write the running configuration back to its file")
    boolean persist;

    @Override
    void run(AdminClient client, PrintWriter out)
            throws AdminCallException, AdminUnreachableException, JsonProcessingException {
        String body = client.send("POST", "/v1/nodes/" + AdminClient.segment(name) + "/drain", null, persist);
        if (printedRaw(body, out)) {
            return;
        }
        NodeDescription node = AdminJson.MAPPER.readValue(body, NodeDescription.class);
        int sessions = node.endpoints().values().stream().mapToInt(NodeDescription.NodeLoad::activeSessions).sum();
        out.println("node '" + name + "' is draining: " + sessions + " session(s) on it now leave at their next "
                + "transaction boundary");
        out.println();
        ProxyTables.nodes(List.of(node)).print(out);
    }
}
