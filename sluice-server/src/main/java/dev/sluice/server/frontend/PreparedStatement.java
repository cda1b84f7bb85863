package dev.sluice.server.frontend;

import java.util.HashMap;
import java.util.Map;

/**
 * One prepared statement as the client sees it (one id) and as each backend holds it (one id per
 * backend that prepared it). Statements are prepared on a backend lazily, where they first run.
 */
final class PreparedStatement {
    private final int clientId;
    private final byte[] prepareFrame;
    private final String sql;
    private final dev.sluice.routing.sql.Statement statement;
    private int paramCount;
    private final Map<Integer, Integer> backendIds = new HashMap<>();
    /** The parameter types of the last execute that sent them (2 bytes per parameter). */
    private byte[] paramTypes;
    /** Backends that have been sent the current parameter types. */
    private final Map<Integer, Boolean> typesSent = new HashMap<>();
    private int cursorNode = -1;
    private int longDataNode = -1;

    PreparedStatement(int clientId, byte[] prepareFrame, String sql, dev.sluice.routing.sql.Statement statement) {
        this.clientId = clientId;
        this.prepareFrame = prepareFrame;
        this.sql = sql;
        this.statement = statement;
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

    /** What the prepared text is, for routing each EXECUTE. */
    dev.sluice.routing.sql.Statement statement() {
        return statement;
    }

    int paramCount() {
        return paramCount;
    }

    void paramCount(int n) {
        this.paramCount = n;
    }

    Integer backendId(int nodeId) {
        return backendIds.get(nodeId);
    }

    void preparedOn(int nodeId, int backendStatementId) {
        backendIds.put(nodeId, backendStatementId);
    }

    void forget(int nodeId) {
        backendIds.remove(nodeId);
        typesSent.remove(nodeId);
    }

    Map<Integer, Integer> backendIds() {
        return backendIds;
    }

    byte[] paramTypes() {
        return paramTypes;
    }

    void paramTypes(byte[] types, int sentToNode) {
        this.paramTypes = types;
        typesSent.clear();
        typesSent.put(sentToNode, true);
    }

    boolean typesKnownBy(int nodeId) {
        return typesSent.containsKey(nodeId);
    }

    void typesSentTo(int nodeId) {
        typesSent.put(nodeId, true);
    }

    int cursorNode() {
        return cursorNode;
    }

    void cursorNode(int nodeId) {
        this.cursorNode = nodeId;
    }

    int longDataNode() {
        return longDataNode;
    }

    void longDataNode(int nodeId) {
        this.longDataNode = nodeId;
    }
}
