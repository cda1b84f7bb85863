package dev.sluice.routing.gtid;

import java.util.Optional;

/**
 * A replication position expressed in GTIDs: what a server has applied, or what a read must see.
 *
 * <p>Consistency levels (BEHAVIOUR §5) reduce to one question, {@link #contains(GtidPosition)}: has this
 * replica applied everything the read requires? Values are immutable and {@link #toString()} prints
 * the server's own syntax, so a position can be passed straight to {@code MASTER_GTID_WAIT} /
 * {@code WAIT_FOR_EXECUTED_GTID_SET}.
 */
public sealed interface GtidPosition permits MariaDbGtidList, MySqlGtidSet {

    /** Which dialect this position is written in. */
    GtidFlavor flavor();

    /** True when the position requires nothing (a fresh server, or no write seen yet). */
    boolean isEmpty();

    /**
     * Whether a server at this position has applied everything in {@code required}. An empty
     * requirement is always contained; positions of different flavours never contain each other.
     */
    boolean contains(GtidPosition required);

    /**
     * The smallest position containing both. Positions of different flavours cannot be combined:
     * the argument wins, because a server that now reports another dialect has replaced the old one.
     */
    GtidPosition merge(GtidPosition other);

    /**
     * How many transactions of {@code required} this position still lacks (0 when it contains it);
     * {@link Long#MAX_VALUE} for a different flavour. Used to pick the replica to wait on: the one
     * closest to the required position.
     */
    long missingCount(GtidPosition required);

    /**
     * Parses either dialect: text with a {@code ':'} is a MySQL set, anything else a MariaDB list.
     * Whitespace and newlines around elements are ignored ({@code @@gtid_executed} prints
     * {@code ",\n"}); empty text is the empty MariaDB position. Garbage gives {@link Optional#empty()}.
     */
    static Optional<GtidPosition> parse(CharSequence text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == ':') {
                return MySqlGtidSet.parse(text).map(GtidPosition.class::cast);
            }
        }
        return MariaDbGtidList.parse(text).map(GtidPosition.class::cast);
    }
}
