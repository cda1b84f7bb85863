package dev.sluice.it.forwarding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A 64 MB BLOB — more than 16 MB, so its packets are split on the wire both ways — is written
 * through Sluice and read back through Sluice byte for byte (SHA-256), with both drivers: MariaDB
 * Connector/J in the binary protocol (pipelined COM_STMT_PREPARE + COM_STMT_EXECUTE of 64 MB, binary
 * result row), MySQL Connector/J in the text protocol (the blob escaped inside a COM_QUERY, text row).
 */
class LargeBlobRoundTripTest {
    private static final int SIZE = 64 * 1024 * 1024;
    private static final String TABLE = "it_large_blob";
    private static SluiceHarness sluice;
    private static SandboxCluster cluster;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        sluice = SluiceHarness.readWrite(cluster, ForwardingEndpoint.PRIMARY_ONLY);
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test." + TABLE,
                "CREATE TABLE test." + TABLE + " (id INT PRIMARY KEY, b LONGBLOB)");
    }

    @AfterAll
    static void stop() throws InterruptedException {
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test." + TABLE);
        sluice.close();
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
            "mariadb, useServerPrepStmts=true, 1",
            "mysql, useServerPrepStmts=false, 2"})
    void a64MegabyteBlobRoundTripsThroughSluice(String driver, String options, int id) throws Exception {
        byte[] blob = new byte[SIZE];
        new Random(id).nextBytes(blob);
        String expected = sha256(blob);
        String opts = options + "&maxAllowedPacket=1073741824&socketTimeout=120000";
        String url = driver.equals("mariadb") ? sluice.mariadbUrl("rw", opts) : sluice.mysqlUrl("rw", opts);

        try (Connection c = DriverManager.getConnection(url)) {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (id, b) VALUES (?, ?)")) {
                ps.setInt(1, id);
                ps.setBytes(2, blob);
                assertThat(ps.executeUpdate()).isEqualTo(1);
            }
            blob = null;
            try (PreparedStatement ps = c.prepareStatement("SELECT b, LENGTH(b), SHA2(b, 256) FROM " + TABLE + " WHERE id = ?")) {
                ps.setInt(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    byte[] back = rs.getBytes(1);
                    assertThat(back.length).as("length read back through Sluice").isEqualTo(SIZE);
                    assertThat(sha256(back)).as("SHA-256 of the blob read back through Sluice").isEqualTo(expected);
                    assertThat(rs.getLong(2)).as("LENGTH(b) stored").isEqualTo(SIZE);
                    assertThat(rs.getString(3)).as("SHA2(b) stored, computed by the server").isEqualTo(expected);
                }
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT 'after the blob'")) {
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("after the blob");
                }
            }
        }
        try (Connection direct = DriverManager.getConnection(cluster.jdbcUrl(cluster.primary()) + "?user="
                + SandboxCluster.APP_USER + "&password=" + SandboxCluster.APP_PASSWORD);
                PreparedStatement ps = direct.prepareStatement("SELECT SHA2(b, 256) FROM " + TABLE + " WHERE id = ?")) {
            ps.setInt(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).as("SHA-256 of the blob read directly from the primary").isEqualTo(expected);
            }
        }
    }

    private static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }
}
