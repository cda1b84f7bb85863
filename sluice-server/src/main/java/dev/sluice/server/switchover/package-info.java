/**
 * The planned switchover run by Sluice (BEHAVIOUR §10): hold the writes, move the primary, release
 * the writes. {@link dev.sluice.server.switchover.Switchover} runs the steps against the nodes;
 * every decision it takes on the way — which replica takes over, whether the sessions let the
 * primary move, whether replication runs, which connections are fenced off — is a pure class of
 * its own ({@link dev.sluice.server.switchover.TargetChoice},
 * {@link dev.sluice.server.switchover.DrainVerdict}, {@link dev.sluice.server.switchover.ReplicaThreads},
 * {@link dev.sluice.server.switchover.ForeignConnections}).
 */
package dev.sluice.server.switchover;
