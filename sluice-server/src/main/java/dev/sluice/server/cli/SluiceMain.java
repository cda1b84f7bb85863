package dev.sluice.server.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code java -jar sluice.jar <command>}: the entry point behind the {@code ./sluice} launcher. */
@Command(name = "sluice", mixinStandardHelpOptions = true, version = "Sluice 0.1.0",
        description = "MySQL/MariaDB read/write-splitting proxy",
        subcommands = {RunCommand.class, DescribeProxyCommand.class, DescribeEndpointCommand.class,
            ModifyEndpointCommand.class, AddEndpointCommand.class, RemoveEndpointCommand.class, AddNodeCommand.class,
            RemoveNodeCommand.class, DrainNodeCommand.class, TopCommand.class, SwitchoverCommand.class,
            FailoverCommand.class})
public final class SluiceMain implements Runnable {

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new SluiceMain()).execute(args));
    }
}
