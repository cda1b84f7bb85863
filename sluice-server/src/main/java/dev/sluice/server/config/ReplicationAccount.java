package dev.sluice.server.config;

/**
 * The account replicas use to read the primary's binlog ({@code replication:} in the
 * configuration): a switchover run by Sluice points every replica at the new primary with it
 * ({@code CHANGE MASTER TO … MASTER_USER}, BEHAVIOUR §10). It needs REPLICATION SLAVE on every node.
 */
public record ReplicationAccount(String user, String password) {
}
