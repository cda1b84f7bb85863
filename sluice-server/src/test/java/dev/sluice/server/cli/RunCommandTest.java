package dev.sluice.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * BEHAVIOUR §13: {@code sluice run} that cannot start says why in one line and exits non-zero — a
 * bad configuration with 2, what the machine refuses (a port taken, a certificate file missing)
 * with 1 — never with a stack trace.
 */
class RunCommandTest {
    /** Nodes nothing listens on: the start does not wait for them. */
    private static final String NODES = """
            monitor: {user: monitor, password: monitor, interval: 100ms, connect-timeout: 100ms, query-timeout: 100ms}
            nodes:
              - {name: primary, address: 127.0.0.1:1, role: primary}
              - {name: ro1, address: 127.0.0.1:1, role: replica}
            admin: {listen: 127.0.0.1:0, token: ""}
            """;

    record Run(int exit, String err) {
    }

    private static Run run(Path config) {
        StringWriter err = new StringWriter();
        int exit = new CommandLine(new SluiceMain()).setOut(new PrintWriter(new StringWriter()))
                .setErr(new PrintWriter(err, true)).execute("run", "--config", config.toString());
        return new Run(exit, err.toString());
    }

    @Test
    void aTakenPortNamesTheEndpointAndTheAddress(@TempDir Path dir) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Path config = Files.writeString(dir.resolve("sluice.yaml"), NODES
                    + "endpoints:\n  - {name: rw, listen: 127.0.0.1:" + taken.getLocalPort() + "}\n");
            Run r = run(config);
            assertThat(r.exit()).isEqualTo(1);
            assertThat(r.err()).startsWith("sluice: cannot start with " + config + ": endpoint 'rw' cannot listen on "
                    + "127.0.0.1:" + taken.getLocalPort() + ": ").contains("Address already in use")
                    .doesNotContain("\tat ");
        }
    }

    @Test
    void aCertificateFileThatCannotBeReadIsNamed(@TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("sluice.yaml"), NODES
                + "endpoints:\n  - {name: rw, listen: 127.0.0.1:0}\n"
                + "tls: {cert: " + dir.resolve("missing-cert.pem") + ", key: " + dir.resolve("missing-key.pem") + "}\n");
        Run r = run(config);
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).startsWith("sluice: cannot start with " + config + ": ")
                .contains("cannot use certificate " + dir.resolve("missing-cert.pem")).doesNotContain("\tat ");
    }

    @Test
    void aBadConfigurationExitsTwo(@TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("sluice.yaml"), NODES + "endpoints: []\n");
        Run r = run(config);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("sluice: " + config + ": endpoints: at least one endpoint is required");
    }
}
