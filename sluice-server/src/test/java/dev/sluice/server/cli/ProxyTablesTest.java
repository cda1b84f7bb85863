package dev.sluice.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.admin.InstanceDescription;
import dev.sluice.server.admin.ProxyDescription;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProxyTablesTest {
    private static final List<InstanceDescription> INSTANCES = List.of(
            new InstanceDescription("a", List.of("rw=127.0.0.1:33047", "ro=127.0.0.1:37253"), "127.0.0.1:8033"),
            new InstanceDescription("b", List.of("rw=127.0.0.1:41917", "ro=127.0.0.1:35631"), "127.0.0.1:8034")
                    .reporting(7, "primary", 3, 12).judged("behind: runs the configuration of etcd revision 7, not 9"));

    @Test
    void theInstancesTableSaysWhichOneLeads() {
        assertThat(print(new ProxyDescription("0.1.0", 60, List.of(), List.of(), null, null, INSTANCES, "b")))
                .contains("""
                        INSTANCES
                        NAME  ROLE    ADMIN           LISTEN                                 HEALTH
                        a     -       127.0.0.1:8033  rw=127.0.0.1:33047 ro=127.0.0.1:37253  -
                        b     leader  127.0.0.1:8034  rw=127.0.0.1:41917 ro=127.0.0.1:35631  behind: runs the configuration of etcd revision 7, not 9
                        """);
    }

    @Test
    void withNoLeaderKnownNoInstanceIsCalledLeader() {
        assertThat(print(new ProxyDescription("0.1.0", 60, List.of(), List.of(), null, null, INSTANCES)))
                .doesNotContain("leader");
    }

    @Test
    void outsideClusterModeThereIsNoInstancesTable() {
        assertThat(print(new ProxyDescription("0.1.0", 60, List.of(), List.of()))).doesNotContain("INSTANCES");
    }

    private static String print(ProxyDescription d) {
        StringWriter text = new StringWriter();
        try (PrintWriter out = new PrintWriter(text)) {
            ProxyTables.print(d, out);
        }
        return text.toString();
    }
}
