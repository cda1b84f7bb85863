package dev.sluice.server.backend;

import java.util.Optional;

/**
 * A backend connection could not be used. When the backend itself refused (a login error, for
 * instance) its MySQL error is kept so that it can be passed to the client unchanged.
 */
public class BackendException extends RuntimeException {
    private final transient Optional<ServerError> serverError;

    public BackendException(String message) {
        super(message);
        this.serverError = Optional.empty();
    }

    public BackendException(String message, Throwable cause) {
        super(message, cause);
        this.serverError = Optional.empty();
    }

    public BackendException(ServerError error) {
        super(error.message());
        this.serverError = Optional.of(error);
    }

    public Optional<ServerError> serverError() {
        return serverError;
    }

    /** An ERR packet's content. */
    public record ServerError(int code, String sqlState, String message) {
    }
}
