package dev.sluice.server.switchover;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which connections of the old primary are ended, as a table (own id 10, Sluice's account {@code monitor}). */
class ForeignConnectionsTest {

    @ParameterizedTest(name = "[{index}] {0} {1} {2} -> {3}")
    @CsvSource(delimiter = '|', textBlock = """
            # id | user            | command           | ended
            10   | monitor         | Query             | false
            11   | monitor         | Sleep             | false
            12   | app             | Sleep             | true
            13   | app             | Query             | true
            14   | root            | Query             | true
            15   | repl            | Binlog Dump GTID  | false
            16   | repl            | Binlog Dump       | false
            17   | system user     | Slave_SQL         | false
            18   | event_scheduler | Daemon            | false
            19   | system user     | Sleep             | false
            20   | unauthenticated user | Connect      | true
            """)
    void endsEveryClientConnectionButSluicesOwnAndTheServers(long id, String user, String command, boolean ended) {
        List<Long> out = ForeignConnections.toEnd(List.of(new ForeignConnections.Connection(id, user, command)), 10,
                "monitor");
        assertThat(out.contains(id)).isEqualTo(ended);
    }
}
