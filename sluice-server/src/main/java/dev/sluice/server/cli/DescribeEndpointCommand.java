package dev.sluice.server.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code describe-endpoint NAME}: DescribeDBProxyEndpoint — every setting of one endpoint. */
@Command(name = "describe-endpoint", mixinStandardHelpOptions = true,
        description = "Show every setting of one endpoint (DescribeDBProxyEndpoint)")
final class DescribeEndpointCommand extends AdminCommand {
    @Parameters(paramLabel = "NAME", description = "Endpoint name")
    String name;

    @Override
    void run(AdminClient client, PrintWriter out)
            throws AdminCallException, AdminUnreachableException, JsonProcessingException {
        String body = client.get("/v1/endpoints/" + AdminClient.segment(name));
        if (!printedRaw(body, out)) {
            SettingsView.print(tree(body), out);
        }
    }
}
