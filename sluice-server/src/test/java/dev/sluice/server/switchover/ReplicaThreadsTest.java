package dev.sluice.server.switchover;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.backend.BackendException;
import dev.sluice.server.backend.QueryResult;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Whether a repointed node replicates, read from SHOW SLAVE STATUS, as a table. */
class ReplicaThreadsTest {

    @ParameterizedTest(name = "[{index}] io {0}, sql {1}, io error {2}, sql error {3} -> {4}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            # io         | sql | io error                         | sql error          | reading
            Yes          | Yes | -                                | -                  | RUNNING running
            Connecting   | Yes | -                                | -                  | STARTING its I/O thread is connecting
            Preparing    | Yes | -                                | -                  | STARTING its I/O thread is preparing
            Connecting   | Yes | error connecting to master 'r@h' | -                  | FAILED its I/O thread is Connecting: error connecting to master 'r@h'
            No           | Yes | Got fatal error 1236             | -                  | FAILED its I/O thread is No: Got fatal error 1236
            Yes          | No  | -                                | Duplicate entry    | FAILED its SQL thread is stopped: Duplicate entry
            Yes          | No  | -                                | -                  | FAILED its SQL thread is stopped
            """)
    void readsTheThreadsAndTheirErrors(String io, String sql, String ioError, String sqlError, String reading) {
        QueryResult status = new QueryResult(
                List.of("Slave_IO_Running", "Slave_SQL_Running", "Last_IO_Error", "Last_SQL_Error"),
                List.of(Arrays.asList(io, sql, ioError == null ? "" : ioError, sqlError == null ? "" : sqlError)), 0,
                Optional.empty());
        ReplicaThreads.Reading r = ReplicaThreads.of(status);
        assertThat(r.state() + " " + r.detail()).isEqualTo(reading);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            none  | FAILED it has no replication configured
            error | FAILED SHOW SLAVE STATUS failed: Access denied
            """)
    void aNodeWithoutReplicationOrAnErrorIsAFailure(String kind, String reading) {
        QueryResult status = kind.equals("none") ? new QueryResult(List.of("Slave_IO_Running"), List.of(), 0,
                Optional.empty())
                : new QueryResult(List.of(), List.of(), 0,
                        Optional.of(new BackendException.ServerError(1227, "42000", "Access denied")));
        ReplicaThreads.Reading r = ReplicaThreads.of(status);
        assertThat(r.state() + " " + r.detail()).isEqualTo(reading);
    }
}
