package dev.sluice.protocol;

/**
 * A payload that does not follow the protocol: a field runs past the end of the packet, a
 * length-encoded integer announces more bytes than there are, a header byte is not the one
 * the message requires.
 *
 * <p>Every decoder in this module throws this — never {@link IndexOutOfBoundsException} or
 * {@link NullPointerException} — so that the server can answer a bad client with an ERR
 * packet and a clean close instead of a stack trace.
 */
public final class MalformedPacketException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MalformedPacketException(String message) {
        super(message);
    }

    public MalformedPacketException(String message, Throwable cause) {
        super(message, cause);
    }
}
