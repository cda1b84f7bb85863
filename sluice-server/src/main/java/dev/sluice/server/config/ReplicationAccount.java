package dev.sluice.server.config;

/**
 * The account replicas use to read the primary's binlog ({@code replication:} in the
 * configuration): a switchover run by Sluice points every replica at the new primary with it
 * ({@code CHANGE MASTER TO … MASTER_USER}, BEHAVIOUR §10). It needs REPLICATION SLAVE on every node.
 * Its password may be a reference ({@code ${VARIABLE}}, {@code password-file:}) like the others.
 */
public record ReplicationAccount(String user, Secret password) {
}
