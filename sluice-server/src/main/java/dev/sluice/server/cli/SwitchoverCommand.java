package dev.sluice.server.cli;

import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code switchover [--to NODE]}: the planned switchover (BEHAVIOUR §10). Waits for its outcome and
 * prints its steps, or the reason it was refused or called off.
 */
@Command(name = "switchover", mixinStandardHelpOptions = true,
        description = "Move the primary role to another node, holding writes meanwhile (POST /v1/switchover)")
final class SwitchoverCommand extends PrimaryMoveCommand {
    @Option(names = "--to", paramLabel = "NODE", description = "The node to promote (default: the most advanced "
            + "healthy replica)")
    String to;

    SwitchoverCommand() {
        super("switchover");
    }

    @Override
    Optional<String> target() {
        return Optional.ofNullable(to);
    }
}
