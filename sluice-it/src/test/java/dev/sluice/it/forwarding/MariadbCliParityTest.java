package dev.sluice.it.forwarding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code mariadb} command-line client runs one script directly against the primary and once
 * through Sluice; its whole output (with column metadata) must be the same, byte for byte.
 */
class MariadbCliParityTest {
    private static final long CLI_TIMEOUT_SECONDS = 60;
    private static SluiceHarness sluice;
    private static SandboxCluster cluster;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        sluice = SluiceHarness.readWrite(cluster, ForwardingEndpoint.PRIMARY_ONLY);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test.it_cli_types", "DROP PROCEDURE IF EXISTS test.it_cli_two");
        sluice.close();
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @Test
    void aScriptGivesTheSameOutputDirectAndThroughSluice() throws Exception {
        Path data = dir.resolve("load.tsv");
        Files.writeString(data, "1\talpha\t1.50\n2\t\\N\t2.25\n3\tgrüße 🎉\t-3.00\n", StandardCharsets.UTF_8);
        Path script = dir.resolve("script.sql");
        Files.writeString(script, script(data), StandardCharsets.UTF_8);

        String direct = runCli(cluster.primary().port(), script, "direct");
        String through = runCli(sluice.port("rw"), script, "sluice");

        assertThat(through).as("mariadb CLI output through Sluice vs direct").isEqualTo(direct);
        // The script did run (so that equality means something): types, both CALL results, LOAD DATA, USE.
        assertThat(direct)
                .contains("üñíçødé 日本語 🎉", "12345678.1234", "2024-02-29 23:59:59.123456", "00FF10")
                .contains("Warning\t1292\tTruncated incorrect INTEGER value: 'abc'")
                .contains("ERROR 1406 (22001)", "ERROR 1146 (42S02)")
                .contains("call_count\n3", "2\tüñíçødé 日本語 🎉")
                .contains("101\talpha\t1.5000", "102\tNULL\t2.2500", "103\tgrüße 🎉\t-3.0000")
                .contains("DATABASE()\nsbtest", "DATABASE()\ntest")
                .contains("Variable_name\tValue\ncharacter_set_client\tutf8mb4");
    }

    private static String script(Path data) {
        return """
                DROP TABLE IF EXISTS it_cli_types;
                DROP PROCEDURE IF EXISTS it_cli_two;
                CREATE TABLE it_cli_types (id INT PRIMARY KEY, name VARCHAR(100) CHARACTER SET utf8mb4,
                  amount DECIMAL(12,4), d DATE, ts DATETIME(6), b BLOB, n INT NULL, f DOUBLE, t TIME, y YEAR,
                  e ENUM('a','b'), j JSON, bits BIT(10));
                INSERT INTO it_cli_types VALUES
                  (1, 'plain', 12345678.1234, '2024-02-29', '2024-02-29 23:59:59.123456', 0x00FF10, NULL, 1.5e10,
                   '-838:59:59', 2155, 'b', '{"k": [1, null, "v"]}', b'1010101010'),
                  (2, 'üñíçødé 日本語 🎉', -0.0001, '1970-01-01', '1999-12-31 00:00:00', NULL, 42, -2.5,
                   '00:00:00.5', 1901, NULL, NULL, NULL);
                UPDATE it_cli_types SET n = n + 1 WHERE id = 2;
                SELECT ROW_COUNT();
                SELECT id, name, amount, d, ts, HEX(b), b IS NULL, n, f, t, y, e, j, bits + 0 FROM it_cli_types ORDER BY id;
                SELECT b FROM it_cli_types WHERE id = 1;
                SELECT NULL, 1/3, CAST('2020-01-02' AS DATE) + INTERVAL 1 DAY, 'a\\tb', REPEAT('z', 10), 0.1 + 0.2,
                  CAST(18446744073709551615 AS UNSIGNED), -9223372036854775808, _binary'\\0\\1';
                INSERT INTO it_cli_types (id, name) VALUES (3, REPEAT('x', 200));
                SHOW WARNINGS;
                SELECT CAST('abc' AS INT);
                SHOW WARNINGS;
                SHOW COUNT(*) WARNINGS;
                SHOW CREATE TABLE it_cli_types;
                SHOW COLUMNS FROM it_cli_types;
                SHOW INDEX FROM it_cli_types;
                SHOW VARIABLES LIKE 'character_set_client';
                SHOW TABLES LIKE 'it_cli_%';
                DELIMITER //
                CREATE PROCEDURE it_cli_two()
                BEGIN
                  SELECT COUNT(*) AS call_count FROM it_cli_types;
                  SELECT id, name FROM it_cli_types ORDER BY id DESC;
                END//
                DELIMITER ;
                INSERT INTO it_cli_types (id, name) VALUES (3, 'three');
                CALL it_cli_two();
                LOAD DATA LOCAL INFILE '@DATA@' INTO TABLE it_cli_types (@i, name, amount) SET id = @i + 100;
                SELECT id, name, amount FROM it_cli_types WHERE id > 100 ORDER BY id;
                BEGIN;
                DELETE FROM it_cli_types WHERE id > 100;
                ROLLBACK;
                SELECT COUNT(*) FROM it_cli_types;
                USE sbtest;
                SELECT DATABASE();
                USE test;
                SELECT DATABASE();
                SELECT * FROM no_such_table_here;
                SELECT 'still here';
                DROP PROCEDURE it_cli_two;
                DROP TABLE it_cli_types;
                """.replace("@DATA@", data.toAbsolutePath().toString());
    }

    private String runCli(int port, Path script, String tag) throws Exception {
        Path out = dir.resolve("out-" + tag + ".txt");
        Process p = new ProcessBuilder(List.of("mariadb", "-h127.0.0.1", "-P" + port, "-u" + SandboxCluster.APP_USER,
                "-p" + SandboxCluster.APP_PASSWORD, "--batch", "--local-infile=1", "--default-character-set=utf8mb4",
                "--force", "--column-type-info", "--connect-timeout=5", "test"))
                .redirectErrorStream(true)
                .redirectInput(script.toFile())
                .redirectOutput(out.toFile())
                .start();
        boolean finished = p.waitFor(CLI_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly();
        }
        // Raw bytes: a BLOB printed as is is not valid UTF-8; the decoder replaces, it does not throw.
        String text = new String(Files.readAllBytes(out), StandardCharsets.UTF_8);
        assertThat(finished).as("the mariadb CLI (" + tag + ") finished; output so far:\n" + text).isTrue();
        return "exit " + p.exitValue() + "\n" + text;
    }
}
