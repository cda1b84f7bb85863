package dev.sluice.server.frontend;

import dev.sluice.server.backend.BackendConnection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/** A session's prepared statements by client-visible id. */
final class PreparedStatements {
    /** MariaDB's "the statement just prepared" id for pipelined PREPARE + EXECUTE. */
    static final int LAST_PREPARED = -1;

    private final Map<Integer, PreparedStatement> byId = new HashMap<>();
    private int nextId = 1;
    private int lastPrepared = 0;

    int allocateId() {
        int id = nextId++;
        if (nextId <= 0) {
            nextId = 1;
        }
        return id;
    }

    void add(PreparedStatement ps) {
        byId.put(ps.clientId(), ps);
        lastPrepared = ps.clientId();
    }

    /** The prepare failed: pipelined executes with id -1 must fail too. */
    void prepareFailed() {
        lastPrepared = 0;
    }

    Optional<PreparedStatement> get(int clientId) {
        int id = clientId == LAST_PREPARED ? lastPrepared : clientId;
        return Optional.ofNullable(byId.get(id));
    }

    /**
     * The statement that {@code backendId} names on connection {@code b}: the way back from a
     * packet already bound for a backend to the statement the client knows. It looks through the
     * session's statements, so it is for the transaction recording only, not the forwarding path.
     */
    Optional<PreparedStatement> heldAs(BackendConnection b, int backendId) {
        for (PreparedStatement ps : byId.values()) {
            OptionalInt id = ps.idOn(b);
            if (id.isPresent() && id.getAsInt() == backendId) {
                return Optional.of(ps);
            }
        }
        return Optional.empty();
    }

    Optional<PreparedStatement> remove(int clientId) {
        return Optional.ofNullable(byId.remove(clientId));
    }

    int size() {
        return byId.size();
    }

    Iterable<PreparedStatement> all() {
        return byId.values();
    }

    void clear() {
        byId.clear();
        lastPrepared = 0;
    }
}
