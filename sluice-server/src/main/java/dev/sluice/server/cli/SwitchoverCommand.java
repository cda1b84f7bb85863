package dev.sluice.server.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code switchover [--to NODE]}: the planned switchover (BEHAVIOUR §10). Waits for its outcome and
 * prints its steps, or the reason it was refused or called off.
 */
@Command(name = "switchover", mixinStandardHelpOptions = true,
        description = "Move the primary role to another node, holding writes meanwhile (POST /v1/switchover)")
final class SwitchoverCommand extends AdminCommand {
    /** A switchover holds writes at most switchover-timeout, twice, plus its steps on every node. */
    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    @Option(names = "--to", paramLabel = "NODE", description = "The node to promote (default: the most advanced "
            + "healthy replica)")
    String to;

    @Override
    void run(AdminClient client, PrintWriter out)
            throws AdminCallException, AdminUnreachableException, JsonProcessingException {
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        if (to != null) {
            body.put("to", to);
        }
        String answer = client.send("POST", "/v1/switchover", body, false, TIMEOUT);
        if (printedRaw(answer, out)) {
            return;
        }
        JsonNode o = tree(answer);
        out.println("switchover done: '" + o.path("from").asText() + "' -> '" + o.path("to").asText()
                + "'; writes were held " + o.path("held-ms").asLong() + " ms");
        TextTable steps = new TextTable().left("STEP").right("MS");
        for (JsonNode s : o.path("steps")) {
            steps.row(s.path("step").asText(), s.path("ms").asLong());
        }
        steps.print(out);
        for (JsonNode w : o.path("warnings")) {
            out.println("warning: " + w.asText());
        }
    }
}
