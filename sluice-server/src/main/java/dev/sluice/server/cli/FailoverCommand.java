package dev.sluice.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code failover [--to NODE]}: promote a replica when the primary is gone (BEHAVIOUR §10). Waits for
 * its outcome and prints its steps, or the reason it was refused or called off.
 */
@Command(name = "failover", mixinStandardHelpOptions = true,
        description = "Promote a replica because the primary is gone, holding writes meanwhile (POST /v1/failover)")
final class FailoverCommand extends PrimaryMoveCommand {
    @Option(names = "--to", paramLabel = "NODE", description = "The node to promote (default: the replica that "
            + "received the most from the primary)")
    String to;

    FailoverCommand() {
        super("failover");
    }

    @Override
    Optional<String> target() {
        return Optional.ofNullable(to);
    }

    /** The old primary's fate is not the operator's to decide any more, so the report says what it will be. */
    @Override
    void printAfterReport(JsonNode answer, PrintWriter out) {
        out.println("'" + answer.path("from").asText() + "' takes no traffic: when it is back Sluice makes it "
                + "read-only, and rejoins it as a replica only if it holds nothing the new primary lacks "
                + "(describe-proxy shows it)");
    }
}
