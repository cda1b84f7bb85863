package dev.sluice.server.admin;

/**
 * One endpoint in DescribeDBProxy.
 *
 * @param name endpoint name
 * @param listen listening address
 * @param mode {@code read-write} or {@code read-only}
 * @param balancer {@code least-active} or {@code weighted}
 * @param consistency {@code eventual}, {@code session} or {@code global}
 * @param activeSessions client connections now
 * @param statements statements routed since start
 */
public record EndpointDescription(String name, String listen, String mode, String balancer, String consistency,
        int activeSessions, long statements) {
}
