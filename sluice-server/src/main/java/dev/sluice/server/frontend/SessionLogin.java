package dev.sluice.server.frontend;

import java.util.Optional;

/**
 * Who the session's client is: the connection id and scramble its handshake gave it, and the
 * account and database it logged in with. COM_CHANGE_USER replaces the account and the database;
 * the id and the scramble stay the session's for its whole life.
 */
final class SessionLogin {
    private final long connectionId;
    private final byte[] scramble;
    private ClientIdentity identity;
    private Optional<String> database;

    SessionLogin(long connectionId, byte[] scramble, ClientIdentity identity, Optional<String> database) {
        this.connectionId = connectionId;
        this.scramble = scramble.clone();
        this.identity = identity;
        this.database = database;
    }

    /** Sluice's own id for the connection: what the handshake announced and CONNECTION_ID() answers. */
    long connectionId() {
        return connectionId;
    }

    /** The scramble of the handshake, which COM_CHANGE_USER's answer is checked against too. */
    byte[] scramble() {
        return scramble.clone();
    }

    ClientIdentity identity() {
        return identity;
    }

    /** The capabilities the client negotiated. */
    long capabilities() {
        return identity.capabilities();
    }

    /** The database named at login (or by COM_CHANGE_USER). */
    Optional<String> database() {
        return database;
    }

    /** COM_CHANGE_USER succeeded: the session goes on as {@code next}, on {@code nextDatabase}. */
    void changedTo(ClientIdentity next, Optional<String> nextDatabase) {
        this.identity = next;
        this.database = nextDatabase;
    }
}
