package dev.sluice.routing.sql;

/**
 * What a statement is, by its leading keywords. Only the {@link #isRead() read} kinds may ever
 * leave the primary; {@link StatementProperty properties} can still pin a read kind to it.
 */
public enum StatementKind {
    /** SELECT, parenthesised SELECT, WITH … SELECT, VALUES, TABLE. */
    SELECT(true),
    /** SHOW … (some SHOW statements carry {@link StatementProperty#NODE_SPECIFIC}). */
    SHOW(true),
    /** DESCRIBE t, EXPLAIN of a read, MariaDB ANALYZE of a SELECT. */
    DESCRIBE(true),
    /** DO expr. */
    DO(true),
    /** HELP 'topic'. */
    HELP(true),
    /** EXPLAIN / ANALYZE of INSERT, UPDATE, DELETE, REPLACE (ANALYZE runs it). */
    EXPLAIN_WRITE(false),
    INSERT(false),
    UPDATE(false),
    DELETE(false),
    REPLACE(false),
    /** LOAD DATA, LOAD XML. */
    LOAD(false),
    /** CREATE, ALTER, DROP, TRUNCATE, RENAME, GRANT, REVOKE, SET PASSWORD, SET DEFAULT ROLE. */
    DDL(false),
    /** FLUSH, RESET, PURGE, ANALYZE/OPTIMIZE/REPAIR/CHECK TABLE, replication control, SET GLOBAL, … */
    ADMINISTRATION(false),
    LOCK_TABLES(false),
    UNLOCK_TABLES(false),
    /** BEGIN, START TRANSACTION, COMMIT, ROLLBACK, SAVEPOINT, RELEASE SAVEPOINT. */
    TRANSACTION(false),
    /** XA START / END / PREPARE / COMMIT / ROLLBACK / RECOVER. */
    XA(false),
    /** SET of session variables, SET NAMES / CHARACTER SET, SET [SESSION] TRANSACTION, SET ROLE. */
    SET_SESSION(false),
    /** SET of user variables only. */
    SET_USER_VARIABLE(false),
    /** USE db. */
    USE(false),
    CALL(false),
    HANDLER(false),
    PREPARE(false),
    /** EXECUTE stmt, EXECUTE IMMEDIATE. */
    EXECUTE(false),
    /** DEALLOCATE PREPARE, DROP PREPARE. */
    DEALLOCATE(false),
    KILL(false),
    /** MariaDB compound statements outside stored programs: BEGIN NOT ATOMIC, IF, CASE, LOOP, WHILE, REPEAT. */
    COMPOUND(false),
    /** GET [CURRENT | STACKED] DIAGNOSTICS. */
    DIAGNOSTICS(false),
    /** Nothing but whitespace and comments. */
    EMPTY(false),
    /** Not recognised; safest on the primary. */
    UNKNOWN(false);

    private final boolean read;

    StatementKind(boolean read) {
        this.read = read;
    }

    /** True for statements that only read and may run on a replica when nothing else forbids it. */
    public boolean isRead() {
        return read;
    }
}
