package dev.sluice.server.frontend;

import dev.sluice.protocol.LengthEncoded;
import dev.sluice.protocol.response.OkPacket;
import dev.sluice.routing.sql.FoundRows;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code LAST_INSERT_ID()} and {@code ROW_COUNT()} must answer for one client, kept by Sluice
 * itself (BEHAVIOUR §7). With a transaction pool the backend connection that ran a statement goes back
 * to the pool when it ends and serves other clients, so it no longer knows the client's answers;
 * the client's OK packets do:
 * <ul>
 *   <li>LAST_INSERT_ID(): the last non-zero insert id of an OK packet. It is given to whichever
 *       connection runs a statement that uses it ({@code SET last_insert_id}). An INSERT that sets
 *       the AUTO_INCREMENT column explicitly reports that value too, though the server's
 *       LAST_INSERT_ID() does not change: the one case where the two differ.</li>
 *   <li>ROW_COUNT(): the affected rows of a plain OK; -1 after a result set or an error. A plain
 *       {@code SELECT ROW_COUNT()} is answered from it.</li>
 *   <li>FOUND_ROWS() after a SELECT: as the server counts it, from the rows sent and the offset
 *       of the SELECT's LIMIT ({@link FoundRows}), and a plain {@code SELECT FOUND_ROWS()} is
 *       answered from it. After SQL_CALC_FOUND_ROWS only the server knows the count: that
 *       statement holds its connection until the next one has run (see
 *       {@link TransactionPoolHandBack#holdThroughNextStatement()}). After another answer with rows
 *       whose count the server alone knows (a UNION, an offset that skipped every row, a SHOW …) the
 *       connection is {@linkplain #foundRowsOnConnection() held} the same way; after an OK the
 *       server is asked.</li>
 * </ul>
 */
final class PreviousStatement {
    /**
     * {@code SELECT ROW_COUNT()}, with an optional alias: the form answered without a backend. The
     * call is captured as written, since without an alias the server names the column by it
     * ({@code select row_count()} gives the column {@code row_count()}).
     */
    private static final Pattern ROW_COUNT_QUERY = Pattern.compile(
            "\\s*SELECT\\s+(ROW_COUNT\\s*\\(\\s*\\))(?:\\s+(?:AS\\s+)?(`[^`]+`|[A-Za-z_][A-Za-z_0-9]*))?\\s*;?\\s*",
            Pattern.CASE_INSENSITIVE);
    /** {@code SELECT FOUND_ROWS()}, with an optional alias. */
    private static final Pattern FOUND_ROWS_QUERY = Pattern.compile(
            "\\s*SELECT\\s+(FOUND_ROWS\\s*\\(\\s*\\))(?:\\s+(?:AS\\s+)?(`[^`]+`|[A-Za-z_][A-Za-z_0-9]*))?\\s*;?\\s*",
            Pattern.CASE_INSENSITIVE);
    /** {@code LAST_INSERT_ID(expr)}: sets the value, in an answer Sluice cannot read (a result set). */
    private static final Pattern SETS_LAST_INSERT_ID = Pattern.compile("LAST_INSERT_ID\\s*\\(\\s*[^)\\s]",
            Pattern.CASE_INSENSITIVE);
    private static final byte[] CALC_FOUND_ROWS = "SQL_CALC_FOUND_ROWS".getBytes(StandardCharsets.US_ASCII);
    /** How far into a statement SQL_CALC_FOUND_ROWS is looked for (it follows the first SELECT). */
    private static final int FOUND_ROWS_SEARCH = 1024;
    /** Longer statements are never the plain forms looked for here. */
    private static final int MAX_PLAIN_FORM = 128;

    private long lastInsertId;
    private long rowCount = -1;
    private long foundRows = -1;
    private boolean calculatesFoundRows;
    /** The statement being sent: its LIMIT's offset as {@link FoundRows#offsetOf} tells, if it was read. */
    private long foundRowsOffset = FoundRows.UNKNOWN;
    private boolean countsFoundRows;
    private boolean foundRowsOnConnection;
    private boolean plainOk;

    long lastInsertId() {
        return lastInsertId;
    }

    long rowCount() {
        return rowCount;
    }

    /** FOUND_ROWS() as Sluice knows it: the previous result set's rows; -1 when only the server knows. */
    long foundRows() {
        return foundRows;
    }

    /**
     * The statement being sent is read for its FOUND_ROWS(): {@code offset} as
     * {@link FoundRows#offsetOf} gives it. A statement not read so leaves the count to the server.
     */
    void countsFoundRows(long offset) {
        countsFoundRows = true;
        foundRowsOffset = offset;
    }

    /**
     * Whether the previous statement answered rows whose FOUND_ROWS() only the connection that ran
     * it knows: that connection must serve the next statement, which may ask.
     */
    boolean foundRowsOnConnection() {
        return foundRowsOnConnection;
    }

    /** The statement being sent asks for SQL_CALC_FOUND_ROWS: its FOUND_ROWS() is the server's. */
    void calculatesFoundRows() {
        calculatesFoundRows = true;
    }

    /** COM_RESET_CONNECTION or COM_CHANGE_USER: a fresh session. */
    void reset() {
        lastInsertId = 0;
        rowCount = -1;
        foundRows = -1;
        calculatesFoundRows = false;
        countsFoundRows = false;
        foundRowsOnConnection = false;
        plainOk = false;
    }

    /** A statement is sent. */
    void started() {
        plainOk = false;
    }

    /** An OK packet of the statement's answer (also the one ending a result set). */
    void onOk(ByteBuf buf, int payloadIndex, int length) {
        if (length < 3) {
            return;
        }
        int header = buf.getUnsignedByte(payloadIndex);
        int affectedAt = payloadIndex + 1;
        long affected;
        long insertId;
        try {
            affected = LengthEncoded.getIntegerAt(buf, affectedAt);
            insertId = LengthEncoded.getIntegerAt(buf, affectedAt + LengthEncoded.encodedSizeAt(buf, affectedAt));
        } catch (RuntimeException malformed) {
            // The packet goes to the client as it is; what it means is not Sluice's to judge here.
            return;
        }
        if (header == OkPacket.HEADER) {
            plainOk = true;
            rowCount = affected;
        }
        if (insertId != 0) {
            lastInsertId = insertId;
        }
    }

    /** The statement's answer ended; {@code resultRows} as {@code ResponseTracker.resultRows()}. */
    void ended(boolean error, long resultRows) {
        if (error || !plainOk) {
            rowCount = -1;
        }
        boolean counted = countsFoundRows && !error && !calculatesFoundRows;
        foundRows = counted ? FoundRows.after(foundRowsOffset, resultRows) : -1;
        foundRowsOnConnection = counted && resultRows >= 0 && foundRows < 0;
        calculatesFoundRows = false;
        countsFoundRows = false;
    }

    /** Sluice answered a statement itself: an OK (BEGIN held back) or a one-row result set. */
    void answeredLocally(boolean resultSet) {
        rowCount = resultSet ? -1 : 0;
        foundRows = resultSet ? 1 : -1;
        foundRowsOnConnection = false;
        countsFoundRows = false;
    }

    /**
     * The column name when {@code frame} (a COM_QUERY, header included) is a plain
     * {@code SELECT ROW_COUNT()}; empty otherwise.
     */
    static Optional<String> rowCountQuery(ByteBuf frame) {
        return plainQuery(frame, ROW_COUNT_QUERY);
    }

    /** As {@link #rowCountQuery}, for a plain {@code SELECT FOUND_ROWS()}. */
    static Optional<String> foundRowsQuery(ByteBuf frame) {
        return plainQuery(frame, FOUND_ROWS_QUERY);
    }

    private static Optional<String> plainQuery(ByteBuf frame, Pattern form) {
        Optional<String> text = shortText(frame);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        Matcher m = form.matcher(text.get());
        if (!m.matches()) {
            return Optional.empty();
        }
        String alias = m.group(2);
        if (alias == null) {
            return Optional.of(m.group(1));
        }
        return Optional.of(alias.startsWith("`") ? alias.substring(1, alias.length() - 1) : alias);
    }

    /** Whether the statement gives LAST_INSERT_ID a value of its own ({@code LAST_INSERT_ID(expr)}). */
    static boolean setsLastInsertId(ByteBuf frame) {
        return SETS_LAST_INSERT_ID.matcher(text(frame)).find();
    }

    /**
     * Whether the statement asks for SQL_CALC_FOUND_ROWS. The server accepts it only among the
     * options of the outermost SELECT, so only the start of the text is searched (in place, no
     * decoding): a 16 MB statement costs no more than a short one.
     */
    static boolean calculatesFoundRows(ByteBuf frame) {
        int start = frame.readerIndex() + dev.sluice.protocol.packet.Packets.HEADER_SIZE + 1;
        int end = start + Math.max(0, Math.min(FOUND_ROWS_SEARCH, frame.writerIndex() - start));
        int last = end - CALC_FOUND_ROWS.length;
        for (int i = start; i <= last; i++) {
            int j = 0;
            while (j < CALC_FOUND_ROWS.length && Character.toUpperCase(frame.getByte(i + j)) == CALC_FOUND_ROWS[j]) {
                j++;
            }
            if (j == CALC_FOUND_ROWS.length) {
                return true;
            }
        }
        return false;
    }

    private static Optional<String> shortText(ByteBuf frame) {
        int length = frame.writerIndex() - frame.readerIndex() - dev.sluice.protocol.packet.Packets.HEADER_SIZE - 1;
        return length > MAX_PLAIN_FORM ? Optional.empty() : Optional.of(text(frame));
    }

    private static String text(ByteBuf frame) {
        int start = frame.readerIndex() + dev.sluice.protocol.packet.Packets.HEADER_SIZE + 1;
        return frame.toString(start, frame.writerIndex() - start, StandardCharsets.UTF_8);
    }
}
