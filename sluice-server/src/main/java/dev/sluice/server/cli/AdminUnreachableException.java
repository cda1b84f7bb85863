package dev.sluice.server.cli;

/** The admin API could not be reached at all (nothing listening, wrong address, timeout). */
final class AdminUnreachableException extends Exception {
    AdminUnreachableException(String message, Throwable cause) {
        super(message, cause);
    }
}
