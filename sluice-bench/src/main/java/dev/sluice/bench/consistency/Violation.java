package dev.sluice.bench.consistency;

/**
 * One read that returned an older value than it was owed, kept as evidence for a bug report:
 * what was expected, what came back, from which server, and how long after the write had been
 * acknowledged.
 *
 * @param row        the row read ({@code id})
 * @param expected   the smallest value the read was owed
 * @param seen       the value it returned
 * @param serverId   {@code @@server_id} of the server that answered
 * @param sinceWriteMicros time from the write's acknowledgement to the read's answer
 * @param detail     anything else that shaped the read (the token it carried)
 */
record Violation(int row, long expected, long seen, long serverId, long sinceWriteMicros, String detail) {

    @Override
    public String toString() {
        return "row " + row + ": expected >= " + expected + ", read " + seen + " from server_id " + serverId + ", "
                + sinceWriteMicros + " us after the write was acknowledged" + (detail.isEmpty() ? "" : "; " + detail);
    }
}
