package dev.sluice.it.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * BEHAVIOUR §3: information_schema tables whose rows belong to one server or one connection are
 * read where that state lives. The optimizer trace is the trace of the connection's previous
 * statement, so it is read on the node that ran it; the process list and the status counters are
 * the primary's, as SHOW PROCESSLIST and SHOW STATUS are.
 */
class OneServersTablesTest {
    /** Reads in a row; with three replicas of equal weight, consecutive reads land on different ones. */
    private static final int READS = 6;
    private static SandboxCluster cluster;
    private static SluiceHarness sluice;
    private static NodeNames names;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        names = new NodeNames(cluster);
        sluice = SluiceHarness.readWrite(cluster,
                "weights: {primary: 0, ro1: 100, ro2: 100, ro3: 100}\nbalancer: weighted");
        AdminView.awaitReadable(sluice, "rw", "ro1", "ro2", "ro3");
    }

    @AfterAll
    static void stop() throws InterruptedException {
        sluice.close();
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @Test
    void theOptimizerTraceIsReadOnTheNodeThatRanTheTracedStatement() throws Exception {
        try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("rw", ""));
                Statement s = c.createStatement()) {
            s.execute("SET optimizer_trace = 'enabled=on'");
            List<String> traced = new ArrayList<>();
            for (int i = 0; i < READS; i++) {
                String query = "SELECT @@server_id, " + i + " AS n FROM DUAL WHERE " + i + " >= 0";
                traced.add(names.where(s, query));
                try (ResultSet rs = s.executeQuery("SELECT QUERY FROM information_schema.OPTIMIZER_TRACE")) {
                    assertThat(rs.next()).as("a trace after the statement on " + traced.get(i)).isTrue();
                    assertThat(rs.getString(1)).as("the trace read after the statement on " + traced.get(i))
                            .isEqualTo(query);
                }
            }
            assertThat(traced).as("traced statements on replicas").doesNotContain("primary")
                    .hasSizeGreaterThan(1);
        }
    }

    @Test
    void aTraceKeptInAUserVariableIsTheTracedStatementsAndEveryNodeHasIt() throws Exception {
        try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("rw", ""));
                Statement s = c.createStatement()) {
            s.execute("SET optimizer_trace = 'enabled=on'");
            for (int i = 0; i < READS; i++) {
                String query = "SELECT @@server_id, " + i + " AS traced_" + i + " FROM DUAL WHERE " + i + " >= 0";
                String where = names.where(s, query);
                s.execute("SET @trace = (SELECT QUERY FROM information_schema.OPTIMIZER_TRACE)");
                // Read on the primary and on a replica: the value reached every backend of the session.
                for (String read : List.of("/*FORCE_MASTER*/ SELECT @trace", "SELECT @trace")) {
                    try (ResultSet rs = s.executeQuery(read)) {
                        assertThat(rs.next()).isTrue();
                        assertThat(rs.getString(1)).as("%s after the statement ran on %s", read, where)
                                .isEqualTo(query);
                    }
                }
            }
        }
    }

    @Test
    void theProcessListAndStatusCountersAreThePrimarys() throws Exception {
        try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("rw", ""));
                Statement s = c.createStatement()) {
            for (int i = 0; i < READS; i++) {
                assertThat(names.where(s, "SELECT @@server_id, COUNT(*) FROM information_schema.PROCESSLIST"))
                        .isEqualTo("primary");
                assertThat(names.where(s, "SELECT @@server_id, VARIABLE_VALUE FROM information_schema.SESSION_STATUS"
                        + " WHERE VARIABLE_NAME = 'Questions'")).isEqualTo("primary");
            }
            assertThat(names.where(s, "SELECT @@server_id FROM information_schema.TABLES LIMIT 1"))
                    .as("other information_schema tables are read on replicas").startsWith("ro");
        }
    }
}
