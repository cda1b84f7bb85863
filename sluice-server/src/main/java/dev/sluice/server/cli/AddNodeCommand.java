package dev.sluice.server.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.server.admin.AdminJson;
import dev.sluice.server.admin.NodeDescription;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code add-node NAME --address HOST:PORT}: a database server joins the cluster Sluice watches. */
@Command(name = "add-node", mixinStandardHelpOptions = true,
        description = "Add a node; endpoints whose node list it is not in do not use it until modified")
final class AddNodeCommand extends AdminCommand {
    @Parameters(paramLabel = "NAME", description = "Node name")
    String name;

    @Option(names = "--address", required = true, paramLabel = "HOST:PORT", description = "Where the server listens")
    String address;

    @Option(names = "--role", paramLabel = "ROLE", defaultValue = "replica",
            description = "primary | replica (default: ${DEFAULT-VALUE})")
    String role;

    @Option(names = "--zone", paramLabel = "ZONE", description = "Zone (informational)")
    String zone;

    @Option(names = "--capacity", paramLabel = "N", description = "Scales the automatic read weight (default 1)")
    Integer capacity;

    @Option(names = "--persist", description = "Also write the running configuration back to its file")
    boolean persist;

    @Override
    void run(AdminClient client, PrintWriter out)
            throws AdminCallException, AdminUnreachableException, JsonProcessingException {
        ObjectNode definition = JsonNodeFactory.instance.objectNode();
        definition.put("name", name);
        definition.put("address", address);
        definition.put("role", role);
        if (zone != null) {
            definition.put("zone", zone);
        }
        if (capacity != null) {
            definition.put("capacity", capacity);
        }
        String body = client.send("POST", "/v1/nodes", definition, persist);
        if (!printedRaw(body, out)) {
            out.println("node '" + name + "' added" + (persist ? " and saved to the configuration file" : ""));
            out.println();
            ProxyTables.nodes(List.of(AdminJson.MAPPER.readValue(body, NodeDescription.class))).print(out);
        }
    }
}
