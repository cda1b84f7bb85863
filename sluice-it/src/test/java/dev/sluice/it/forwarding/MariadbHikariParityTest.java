package dev.sluice.it.forwarding;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * MariaDB Connector/J through a HikariCP pool, several threads at once, with server-side prepared
 * statements (the driver pipelines PREPARE and EXECUTE, the latter with statement id -1) and
 * batches sent as COM_STMT_BULK_EXECUTE. The same workload runs directly and through Sluice:
 * every thread's reads must match its writes, and the final tables must be identical.
 */
class MariadbHikariParityTest {
    private static final String TABLE = "it_hikari_orders";
    private static final int THREADS = 4;
    private static final int ROUNDS = 40;
    private static final int BATCH = 25;
    private static final String OPTIONS = "useServerPrepStmts=true&useBulkStmts=true&cachePrepStmts=true"
            + "&connectTimeout=5000&socketTimeout=60000";
    private static SluiceHarness sluice;
    private static SandboxCluster cluster;

    @BeforeAll
    static void start() {
        cluster = SandboxCluster.get();
        sluice = SluiceHarness.readWrite(cluster, ForwardingEndpoint.PRIMARY_ONLY);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test." + TABLE);
        sluice.close();
        assertThat(NettyLeaks.collect()).isEmpty();
    }

    @Test
    void aPooledMultiThreadedWorkloadGivesTheSameTableDirectAndThroughSluice() throws Exception {
        String directUrl = cluster.jdbcUrl(cluster.primary()) + "?user=" + SandboxCluster.APP_USER + "&password="
                + SandboxCluster.APP_PASSWORD + "&" + OPTIONS;
        List<String> direct = runWorkload(directUrl);
        List<String> through = runWorkload(sluice.mariadbUrl("rw", OPTIONS));

        assertThat(through).as("table after the workload through Sluice vs direct").isEqualTo(direct);
        assertThat(direct).hasSize(THREADS * (ROUNDS + BATCH));
    }

    private List<String> runWorkload(String url) throws Exception {
        cluster.exec(cluster.primary(), "DROP TABLE IF EXISTS test." + TABLE, "CREATE TABLE test." + TABLE
                + " (id INT PRIMARY KEY, worker INT NOT NULL, label VARCHAR(80) CHARACTER SET utf8mb4, "
                + "price DECIMAL(10,2), payload BLOB, created DATE)");
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(THREADS);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(10_000);
        config.setPoolName("it-hikari");
        try (HikariDataSource pool = new HikariDataSource(config)) {
            ExecutorService workers = Executors.newFixedThreadPool(THREADS);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int w = 0; w < THREADS; w++) {
                    int worker = w;
                    done.add(workers.submit(() -> {
                        work(pool, worker);
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get(120, TimeUnit.SECONDS);
                }
            } finally {
                workers.shutdownNow();
            }
            List<String> rows = new ArrayList<>();
            try (Connection c = pool.getConnection(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT id, worker, label, price, HEX(payload), created FROM " + TABLE
                            + " ORDER BY id")) {
                while (rs.next()) {
                    rows.add(rs.getInt(1) + "|" + rs.getInt(2) + "|" + rs.getString(3) + "|" + rs.getBigDecimal(4) + "|"
                            + rs.getString(5) + "|" + rs.getDate(6));
                }
            }
            return rows;
        }
    }

    private static void work(HikariDataSource pool, int worker) throws Exception {
        for (int i = 0; i < ROUNDS; i++) {
            int id = worker * 10_000 + i;
            String label = "w" + worker + "-r" + i + " ünïcödé ✓";
            byte[] payload = {(byte) worker, (byte) i, 0, (byte) 0xFF, 0x27};
            try (Connection c = pool.getConnection()) {
                try (PreparedStatement ins = c.prepareStatement("INSERT INTO " + TABLE
                        + " (id, worker, label, price, payload, created) VALUES (?, ?, ?, ?, ?, '2024-01-01' + INTERVAL ? DAY)")) {
                    ins.setInt(1, id);
                    ins.setInt(2, worker);
                    ins.setString(3, label);
                    ins.setBigDecimal(4, BigDecimal.valueOf(id, 2));
                    ins.setBytes(5, payload);
                    ins.setInt(6, i);
                    assertThat(ins.executeUpdate()).isEqualTo(1);
                }
                try (PreparedStatement sel = c.prepareStatement("SELECT label, price, payload FROM " + TABLE
                        + " WHERE id = ?")) {
                    sel.setInt(1, id);
                    try (ResultSet rs = sel.executeQuery()) {
                        assertThat(rs.next()).as("row %d read back", id).isTrue();
                        assertThat(rs.getString(1)).isEqualTo(label);
                        assertThat(rs.getBigDecimal(2)).isEqualByComparingTo(BigDecimal.valueOf(id, 2));
                        assertThat(rs.getBytes(3)).isEqualTo(payload);
                        assertThat(rs.next()).isFalse();
                    }
                }
                if (i % 10 == 0) {
                    c.setAutoCommit(false);
                    try (PreparedStatement upd = c.prepareStatement("UPDATE " + TABLE + " SET label = CONCAT(label, ?) WHERE id = ?")) {
                        upd.setString(1, " (tx)");
                        upd.setInt(2, id);
                        assertThat(upd.executeUpdate()).isEqualTo(1);
                        c.commit();
                    } finally {
                        c.setAutoCommit(true);
                    }
                }
            }
        }
        try (Connection c = pool.getConnection();
                PreparedStatement bulk = c.prepareStatement("INSERT INTO " + TABLE
                        + " (id, worker, label, price, payload, created) VALUES (?, ?, ?, ?, ?, ?)")) {
            for (int j = 0; j < BATCH; j++) {
                int id = worker * 10_000 + 5_000 + j;
                bulk.setInt(1, id);
                bulk.setInt(2, worker);
                bulk.setString(3, j % 5 == 0 ? null : "bulk " + j);
                bulk.setBigDecimal(4, j % 3 == 0 ? null : BigDecimal.valueOf(j * 111, 2));
                bulk.setBytes(5, new byte[] {(byte) j});
                bulk.setDate(6, java.sql.Date.valueOf("2030-06-15"));
                bulk.addBatch();
            }
            int[] counts = bulk.executeBatch();
            assertThat(counts).hasSize(BATCH);
        }
    }
}
