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
 * {@code failover [--to NODE]}: promote a replica when the primary is gone (BEHAVIOUR §10). Waits for
 * its outcome and prints its steps, or the reason it was refused or called off.
 */
@Command(name = "failover", mixinStandardHelpOptions = true,
        description = "Promote a replica because the primary is gone, holding writes meanwhile (POST /v1/failover)")
final class FailoverCommand extends AdminCommand {
    /** A failover waits at most switchover-timeout for its target, plus its steps on every node. */
    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    @Option(names = "--to", paramLabel = "NODE", description = "The node to promote (default: the replica that "
            + "received the most from the primary)")
    String to;

    @Override
    void run(AdminClient client, PrintWriter out)
            throws AdminCallException, AdminUnreachableException, JsonProcessingException {
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        if (to != null) {
            body.put("to", to);
        }
        String answer = client.send("POST", "/v1/failover", body, false, TIMEOUT);
        if (printedRaw(answer, out)) {
            return;
        }
        JsonNode o = tree(answer);
        out.println("failover done: '" + o.path("from").asText() + "' -> '" + o.path("to").asText()
                + "'; writes were held " + o.path("held-ms").asLong() + " ms");
        TextTable steps = new TextTable().left("STEP").right("MS");
        for (JsonNode s : o.path("steps")) {
            steps.row(s.path("step").asText(), s.path("ms").asLong());
        }
        steps.print(out);
        for (JsonNode w : o.path("warnings")) {
            out.println("warning: " + w.asText());
        }
        out.println("'" + o.path("from").asText() + "' takes no traffic: when it is back Sluice makes it read-only, "
                + "and rejoins it as a replica only if it holds nothing the new primary lacks (describe-proxy shows it)");
    }
}
