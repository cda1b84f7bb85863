package dev.sluice.it.support;

/** The sandbox cluster could not do what a test asked; the message says what and where to look. */
public final class SandboxException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public SandboxException(String message) {
        super(message);
    }

    public SandboxException(String message, Throwable cause) {
        super(message, cause);
    }
}
