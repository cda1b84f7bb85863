package dev.sluice.server.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code add-endpoint --file F}: a new endpoint from one {@code endpoints:} entry (YAML or JSON); it starts listening. */
@Command(name = "add-endpoint", mixinStandardHelpOptions = true,
        description = "Add an endpoint from a file holding one endpoint entry, as in the configuration file")
final class AddEndpointCommand extends AdminCommand {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @Option(names = "--file", required = true, paramLabel = "FILE",
            description = "YAML or JSON: name, listen, mode, nodes, weights, …")
    Path file;

    @Option(names = "--persist", description = "Also write the running configuration back to its file")
    boolean persist;

    @Override
    void run(AdminClient client, PrintWriter out)
            throws AdminCallException, AdminUnreachableException, JsonProcessingException {
        JsonNode definition;
        try {
            definition = YAML.readTree(Files.readString(file));
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "--file " + file + ": " + e.getMessage());
        }
        if (definition == null || !definition.isObject()) {
            throw new ParameterException(spec.commandLine(), "--file " + file
                    + ": must hold one endpoint as a mapping (name: …, listen: …)");
        }
        String body = client.send("POST", "/v1/endpoints", definition, persist);
        if (!printedRaw(body, out)) {
            JsonNode settings = tree(body);
            out.println("endpoint '" + settings.path("name").asText() + "' added"
                    + (persist ? " and saved to the configuration file" : ""));
            out.println();
            SettingsView.print(settings, out);
        }
    }
}
