/**
 * {@code consistency-check}: does Sluice keep the promises of its consistency levels (BEHAVIOUR §5)
 * against a real cluster, and what do they cost?
 *
 * <p>It is a checker, not a test: it runs for a fixed time against a Sluice that is already up,
 * counts violations of each promise, the share of reads served by replicas and the read latency,
 * and writes its figures to {@code docs/PERFORMANCE.md}. Workloads:
 * <ul>
 *   <li>{@link dev.sluice.bench.consistency.ReadYourWrites} — each session writes and reads back
 *       at once (the {@code session} promise);</li>
 *   <li>{@link dev.sluice.bench.consistency.CrossSessionReads} — readers must see what writers on
 *       other connections have already committed (the {@code global} promise);</li>
 *   <li>{@link dev.sluice.bench.consistency.TokenHandoff} — a GTID from
 *       {@code sluice_last_gtid()} handed to another connection as a
 *       {@code CONSISTENT_WITH} hint.</li>
 * </ul>
 * Entry point: {@link dev.sluice.bench.consistency.ConsistencyCheck}.
 */
package dev.sluice.bench.consistency;
