package dev.sluice.server.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code modify-endpoint NAME --set key=value …}: ModifyDBProxyEndpoint. All the settings go in one
 * request, so they are applied together or not at all.
 */
@Command(name = "modify-endpoint", mixinStandardHelpOptions = true,
        description = "Change settings of an endpoint at once, without a restart (ModifyDBProxyEndpoint)",
        footer = {"", "Examples:",
            "  sluice modify-endpoint rw --set weights='{primary: 0, ro1: 100, ro2: 0}'",
            "  sluice modify-endpoint rw --set weights.ro1=50      (one node; the others keep theirs)",
            "  sluice modify-endpoint rw --set consistency=session --persist",
            "  sluice modify-endpoint rw --set allow='[10.0.0.0/8, 127.0.0.0/8]'"})
final class ModifyEndpointCommand extends AdminCommand {
    @Parameters(paramLabel = "NAME", description = "Endpoint name")
    String name;

    @Option(names = "--set", required = true, paramLabel = "KEY=VALUE", converter = SettingAssignment.Converter.class,
            description = "A setting as in the configuration file; the value is YAML (a scalar, [a, b] or {k: v})")
    List<SettingAssignment> settings;

    @Option(names = "--persist", description = "Also write the running configuration back to its file")
    boolean persist;

    @Override
    void run(AdminClient client, PrintWriter out)
            throws AdminCallException, AdminUnreachableException, JsonProcessingException {
        ObjectNode changes = JsonNodeFactory.instance.objectNode();
        for (SettingAssignment s : settings) {
            if (changes.has(s.key())) {
                throw new ParameterException(spec.commandLine(), "--set " + s.key() + " is given twice");
            }
            changes.set(s.key(), s.value());
        }
        String body = client.send("PATCH", "/v1/endpoints/" + AdminClient.segment(name), changes, persist);
        if (!printedRaw(body, out)) {
            out.println("endpoint '" + name + "' modified" + (persist ? " and saved to the configuration file" : ""));
            out.println();
            SettingsView.print(tree(body), out);
        }
    }
}
