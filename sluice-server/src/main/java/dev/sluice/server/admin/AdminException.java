package dev.sluice.server.admin;

/** A refused admin operation: the HTTP status to answer with and a message naming the problem. */
public final class AdminException extends RuntimeException {
    public static final int BAD_REQUEST = 400;
    public static final int NOT_FOUND = 404;
    public static final int CONFLICT = 409;

    private final int status;

    public AdminException(int status, String message) {
        super(message);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
