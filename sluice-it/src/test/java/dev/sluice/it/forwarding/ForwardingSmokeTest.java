package dev.sluice.it.forwarding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ForwardingSmokeTest {
    private static SluiceHarness sluice;

    @BeforeAll
    static void start() {
        sluice = SluiceHarness.readWrite(SandboxCluster.get(), "");
    }

    @AfterAll
    static void stop() throws InterruptedException {
        sluice.close();
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @Test
    void aQueryThroughSluiceIsAnsweredByTheCluster() throws Exception {
        try (Connection c = DriverManager.getConnection(sluice.mariadbUrl("rw", ""));
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT 40 + 2")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isEqualTo(42);
        }
    }
}
