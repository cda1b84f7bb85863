package dev.sluice.bench.consistency;

/**
 * What a workload runs against: the endpoint of one consistency level, the primary (for writers
 * that must bypass Sluice), and the values it may use.
 *
 * @param level         the level under test
 * @param url           its endpoint
 * @param primaryUrl    the primary, directly
 * @param primaryServerId {@code @@server_id} of the primary: any other id answered from a replica
 * @param connections   how to connect
 * @param sessions      client sessions reading (and writing, for read-your-writes)
 * @param writers       writers of the cross-session check
 * @param writerRate    commits per second per writer; 0: as fast as the primary takes them
 * @param valueBase     first value of this run, above every value an earlier run wrote, so a stale
 *                      row left by an earlier run reads as older, never as newer
 */
record Target(Level level, String url, String primaryUrl, long primaryServerId, Connections connections,
        int sessions, int writers, int writerRate, long valueBase) {

    boolean onReplica(ReadResult r) {
        return r.serverId() != primaryServerId;
    }
}
