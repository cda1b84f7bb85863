package dev.sluice.server.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.sluice.server.admin.AdminJson;
import dev.sluice.server.admin.ProxyDescription;
import java.io.PrintWriter;
import picocli.CommandLine.Command;

/** {@code describe-proxy}: DescribeDBProxy — endpoints, nodes with their state, and the load on each. */
@Command(name = "describe-proxy", mixinStandardHelpOptions = true,
        description = "Show the endpoints, the nodes with their state, and the load on each (DescribeDBProxy)")
final class DescribeProxyCommand extends AdminCommand {

    @Override
    void run(AdminClient client, PrintWriter out)
            throws AdminCallException, AdminUnreachableException, JsonProcessingException {
        String body = client.get("/v1/proxy");
        if (!printedRaw(body, out)) {
            ProxyTables.print(AdminJson.MAPPER.readValue(body, ProxyDescription.class), out);
        }
    }
}
