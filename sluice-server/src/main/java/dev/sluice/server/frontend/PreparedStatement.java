package dev.sluice.server.frontend;

import dev.sluice.server.digest.DigestKey;
import dev.sluice.routing.sql.Statement;
import dev.sluice.server.backend.BackendConnection;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;

/**
 * One prepared statement as the client sees it (one id) and as each backend connection holds it.
 * Statements are prepared on a backend lazily, where they first run.
 *
 * <p>A server's statement id names a statement of one connection only: after that connection is
 * gone, the same number names another statement, or none, on the connection that replaces it. So
 * every backend id is kept with the {@link BackendConnection#serial() serial} of the connection
 * that answered it, and is given out only for that very connection. A connection lost by any path
 * — closed by the server, found dead, left by the session — cannot leave an id behind that a new
 * connection would be sent (docs/ARCHITECTURE.md, "Prepared statements").
 */
final class PreparedStatement {
    private final int clientId;
    private final byte[] prepareFrame;
    private final String sql;
    private final Statement statement;
    private final boolean answeredBySluice;
    private int paramCount;
    /** Per node, the statement on the session's connection to it that prepared it last. */
    private final Map<Integer, OnConnection> byNode = new HashMap<>();
    /** The parameter types of the last execute that sent them (2 bytes per parameter). */
    private byte[] paramTypes;
    private Place cursor = Place.NONE;
    private Place longData = Place.NONE;
    /** Its query digest (BEHAVIOUR §12), computed at its first EXECUTE. */
    private DigestKey digest;

    /** The statement's id on one backend connection, and whether that connection has the current types. */
    record OnConnection(long connectionSerial, int backendId, boolean typesSent) {
    }

    /** A connection that holds something of the statement's (an open cursor, long data sent). */
    record Place(int nodeId, long connectionSerial) {
        static final Place NONE = new Place(-1, -1);

        static Place of(BackendConnection b) {
            return new Place(b.nodeId(), b.serial());
        }

        boolean isNone() {
            return nodeId < 0;
        }

        boolean is(BackendConnection b) {
            return b != null && b.serial() == connectionSerial;
        }
    }

    PreparedStatement(int clientId, byte[] prepareFrame, String sql, Statement statement) {
        this(clientId, prepareFrame, sql, statement, false);
    }

    /** @param answeredBySluice Sluice answers its executes itself ({@code SELECT sluice_last_gtid()}): no backend holds it */
    PreparedStatement(int clientId, byte[] prepareFrame, String sql, Statement statement, boolean answeredBySluice) {
        this.clientId = clientId;
        this.prepareFrame = prepareFrame;
        this.sql = sql;
        this.statement = statement;
        this.answeredBySluice = answeredBySluice;
    }

    boolean answeredBySluice() {
        return answeredBySluice;
    }

    int clientId() {
        return clientId;
    }

    /** The original COM_STMT_PREPARE packet (header included), to prepare it on another backend. */
    byte[] prepareFrame() {
        return prepareFrame;
    }

    String sql() {
        return sql;
    }

    DigestKey digest() {
        return digest;
    }

    void digest(DigestKey key) {
        this.digest = key;
    }

    /** What the prepared text is, for routing each EXECUTE. */
    Statement statement() {
        return statement;
    }

    int paramCount() {
        return paramCount;
    }

    void paramCount(int n) {
        this.paramCount = n;
    }

    /** The statement's id on {@code b}; empty when it was never prepared on that very connection. */
    OptionalInt idOn(BackendConnection b) {
        OnConnection on = byNode.get(b.nodeId());
        return on != null && on.connectionSerial() == b.serial() ? OptionalInt.of(on.backendId()) : OptionalInt.empty();
    }

    void preparedOn(BackendConnection b, int backendStatementId) {
        byNode.put(b.nodeId(), new OnConnection(b.serial(), backendStatementId, false));
    }

    /**
     * Where the statement is prepared, by node. An entry may name a connection the session no
     * longer has: check it with {@link OnConnection#connectionSerial()} before using its id.
     */
    Map<Integer, OnConnection> preparedByNode() {
        return byNode;
    }

    byte[] paramTypes() {
        return paramTypes;
    }

    /** The client sent new parameter types in an execute bound for {@code b}: the others no longer have them. */
    void paramTypes(byte[] types, BackendConnection b) {
        this.paramTypes = types;
        byNode.replaceAll((node, on) -> new OnConnection(on.connectionSerial(), on.backendId(), false));
        typesSentTo(b);
    }

    boolean typesKnownBy(BackendConnection b) {
        OnConnection on = byNode.get(b.nodeId());
        return on != null && on.connectionSerial() == b.serial() && on.typesSent();
    }

    void typesSentTo(BackendConnection b) {
        OnConnection on = byNode.get(b.nodeId());
        if (on != null && on.connectionSerial() == b.serial()) {
            byNode.put(b.nodeId(), new OnConnection(on.connectionSerial(), on.backendId(), true));
        }
    }

    /** The connection where the last EXECUTE opened a cursor. */
    Place cursor() {
        return cursor;
    }

    void cursorOn(BackendConnection b) {
        this.cursor = Place.of(b);
    }

    /** The connection that was sent long data for the next EXECUTE. */
    Place longData() {
        return longData;
    }

    void longDataOn(BackendConnection b) {
        this.longData = Place.of(b);
    }

    void longDataUsed() {
        this.longData = Place.NONE;
    }
}
