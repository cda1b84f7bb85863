package dev.sluice.server.frontend;

import io.netty.channel.WriteBufferWaterMark;

/**
 * How {@code limits.session-memory} is shared out within one session: an eighth for answers
 * waiting to be written to the client (the channel's write-buffer high-water mark: above it Sluice
 * stops reading the backend that feeds the client, and reads again below a quarter of that), the
 * rest for client packets read but not yet passed on ({@link InboundBudget}). The default, 4 MiB,
 * gives the 512 KiB / 128 KiB marks that proved right for streaming results.
 *
 * @param inbound bytes of client packets a session may hold before reading from the client stops
 * @param outbound the client channel's write-buffer marks
 */
record SessionMemory(long inbound, WriteBufferWaterMark outbound) {
    private static final int OUTBOUND_SHARE = 8;
    private static final int LOW_MARK_FRACTION = 4;

    static SessionMemory of(long sessionMemory) {
        long high = Math.min(Integer.MAX_VALUE, sessionMemory / OUTBOUND_SHARE);
        return new SessionMemory(sessionMemory - high,
                new WriteBufferWaterMark((int) (high / LOW_MARK_FRACTION), (int) high));
    }
}
