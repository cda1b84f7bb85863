package dev.sluice.server.config;

/** A user whose password Sluice is given (needed for accounts whose plugin it cannot verify otherwise). */
public record UserConfig(String user, String password) {
}
