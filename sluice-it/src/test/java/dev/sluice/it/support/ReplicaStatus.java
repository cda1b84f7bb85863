package dev.sluice.it.support;

import java.util.Map;

/**
 * The fields of {@code SHOW SLAVE STATUS} the harness acts on.
 *
 * @param configured whether the node has a replication source at all
 * @param sourceHost {@code Master_Host}
 * @param sourcePort {@code Master_Port}, 0 when not configured
 * @param ioRunning {@code Slave_IO_Running}: Yes, No or Connecting
 * @param sqlRunning {@code Slave_SQL_Running}: Yes or No
 * @param sqlDelay {@code SQL_Delay} in seconds
 * @param usingGtid {@code Using_Gtid}: No, Slave_Pos or Current_Pos
 * @param lastIoError {@code Last_IO_Error}
 * @param lastSqlError {@code Last_SQL_Error}
 */
record ReplicaStatus(boolean configured, String sourceHost, int sourcePort, String ioRunning, String sqlRunning,
        long sqlDelay, String usingGtid, String lastIoError, String lastSqlError) {

    static final ReplicaStatus NOT_A_REPLICA = new ReplicaStatus(false, "", 0, "No", "No", 0, "No", "", "");

    static ReplicaStatus of(Map<String, String> fields) {
        if (fields.isEmpty()) {
            return NOT_A_REPLICA;
        }
        return new ReplicaStatus(true,
                fields.getOrDefault("Master_Host", ""),
                Integer.parseInt(fields.getOrDefault("Master_Port", "0")),
                fields.getOrDefault("Slave_IO_Running", "No"),
                fields.getOrDefault("Slave_SQL_Running", "No"),
                Long.parseLong(fields.getOrDefault("SQL_Delay", "0")),
                fields.getOrDefault("Using_Gtid", "No"),
                fields.getOrDefault("Last_IO_Error", ""),
                fields.getOrDefault("Last_SQL_Error", ""));
    }

    boolean threadsRunning() {
        return "Yes".equals(ioRunning) && "Yes".equals(sqlRunning);
    }

    /** Whether this is a healthy replica of the given source: both threads running, no delay. */
    boolean replicatesFrom(SandboxNode source) {
        return configured && "127.0.0.1".equals(sourceHost) && sourcePort == source.port()
                && threadsRunning() && sqlDelay == 0;
    }

    @Override
    public String toString() {
        if (!configured) {
            return "no replication source";
        }
        return "source " + sourceHost + ":" + sourcePort + ", IO " + ioRunning + ", SQL " + sqlRunning
                + ", SQL_Delay " + sqlDelay + ", Using_Gtid " + usingGtid
                + (lastIoError.isEmpty() ? "" : ", last IO error: " + lastIoError)
                + (lastSqlError.isEmpty() ? "" : ", last SQL error: " + lastSqlError);
    }
}
