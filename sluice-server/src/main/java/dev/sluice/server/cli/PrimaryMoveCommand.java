package dev.sluice.server.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Optional;

/**
 * A command that moves the primary role (BEHAVIOUR §10): the switchover and the failover are asked
 * for the same way ({@code POST /v1/NAME}, {@code {"to": NODE}} optional) and answer, once over,
 * with the same report, so both are sent and printed here.
 */
abstract class PrimaryMoveCommand extends AdminCommand {
    /**
     * A move holds writes at most switchover-timeout, twice (a failover waits that long for its
     * target), plus its steps on every node.
     */
    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    /** {@code switchover} or {@code failover}: the admin API's path and the report's first word. */
    private final String move;

    PrimaryMoveCommand(String move) {
        this.move = move;
    }

    /** The node the operator named with {@code --to}; empty leaves the choice to Sluice. */
    abstract Optional<String> target();

    /** Anything the report should add after the steps and warnings. */
    void printAfterReport(JsonNode answer, PrintWriter out) {
    }

    @Override
    final void run(AdminClient client, PrintWriter out)
            throws AdminCallException, AdminUnreachableException, JsonProcessingException {
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        target().ifPresent(node -> body.put("to", node));
        String answer = client.send("POST", "/v1/" + move, body, false, TIMEOUT);
        if (printedRaw(answer, out)) {
            return;
        }
        JsonNode o = tree(answer);
        out.println(move + " done: '" + o.path("from").asText() + "' -> '" + o.path("to").asText()
                + "'; writes were held " + o.path("held-ms").asLong() + " ms");
        TextTable steps = new TextTable().left("STEP").right("MS");
        for (JsonNode s : o.path("steps")) {
            steps.row(s.path("step").asText(), s.path("ms").asLong());
        }
        steps.print(out);
        for (JsonNode w : o.path("warnings")) {
            out.println("warning: " + w.asText());
        }
        printAfterReport(o, out);
    }
}
