package dev.sluice.server.cli;

/**
 * The admin API refused a request ({@code status} ≥ 400); the message is the server's own
 * {@code error}, printed as it is so that the operator sees exactly what Sluice said.
 */
final class AdminCallException extends Exception {
    private final int status;

    AdminCallException(int status, String message) {
        super(message);
        this.status = status;
    }

    int status() {
        return status;
    }
}
