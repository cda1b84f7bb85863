package dev.sluice.server.monitor;

import dev.sluice.routing.gtid.GtidPosition;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What one check of one node found, before it is turned into routing state.
 *
 * @param readOnly {@code @@read_only}
 * @param position applied GTID position ({@code @@gtid_current_pos} or {@code @@gtid_executed})
 * @param replicating the node has a replication source configured
 * @param ioRunning replication I/O thread running
 * @param sqlRunning replication SQL thread running
 * @param secondsBehind {@code Seconds_Behind_Master}, absent when NULL
 * @param replicationError last I/O or SQL error text, empty when none
 * @param serverVersion {@code @@version}
 */
public record NodeObservation(boolean readOnly, Optional<GtidPosition> position, boolean replicating,
        boolean ioRunning, boolean sqlRunning, OptionalLong secondsBehind, String replicationError,
        String serverVersion) {
}
