package dev.sluice.routing.sql;

import java.util.ArrayList;
import java.util.List;

/**
 * The words the classifier acts on. A constant's name, lower-cased, is its spelling, so the table
 * is built from the enum itself. {@link #NONE} stands for any other word.
 */
enum Keyword {
    NONE,
    // statement starts
    SELECT, INSERT, UPDATE, DELETE, REPLACE, LOAD, WITH, SHOW, DESCRIBE, DESC, EXPLAIN, ANALYZE, DO, VALUES,
    TABLE, HELP, CREATE, ALTER, DROP, TRUNCATE, RENAME, GRANT, REVOKE, SET, USE, START, BEGIN, COMMIT,
    ROLLBACK, SAVEPOINT, RELEASE, XA, LOCK, UNLOCK, HANDLER, CALL, PREPARE, EXECUTE, DEALLOCATE, KILL, FLUSH,
    RESET, PURGE, OPTIMIZE, REPAIR, CHECK, CHECKSUM, INSTALL, UNINSTALL, CACHE, SHUTDOWN, RESTART, CLONE,
    BINLOG, CHANGE, STOP, BACKUP, SIGNAL, RESIGNAL, GET, IF, CASE, LOOP, WHILE, REPEAT, DECLARE,
    // clauses
    FROM, JOIN, STRAIGHT_JOIN, WHERE, GROUP, ORDER, HAVING, LIMIT, UNION, EXCEPT, INTERSECT, ON, USING, WINDOW,
    INTO, FOR, IN, SHARE, MODE, NEXT, PREVIOUS, VALUE, END, RETURNING, DUAL, LATERAL, AS, RECURSIVE, PROCEDURE,
    NOT, ATOMIC, EXISTS, OR, TEMPORARY, TABLES, DATA, XML, INDEX, IMMEDIATE, DIAGNOSTICS, CURRENT, STACKED,
    FORMAT, EXTENDED, PARTITIONS, NO_WRITE_TO_BINLOG, LOCAL, INSTANCE, ALL, FUNCTION, TRIGGER, EVENT, PACKAGE,
    EXPORT, STAGE,
    // transactions
    WORK, TRANSACTION, AND, NO, CHAIN, TO, CONSISTENT, SNAPSHOT, READ, WRITE, ONLY, ISOLATION, LEVEL,
    COMMITTED, UNCOMMITTED, REPEATABLE, SERIALIZABLE, RECOVER,
    // SET
    NAMES, CHARACTER, CHARSET, PASSWORD, ROLE, DEFAULT, STATEMENT, GLOBAL, SESSION, PERSIST, PERSIST_ONLY,
    AUTOCOMMIT, TX_ISOLATION, TRANSACTION_ISOLATION, TX_READ_ONLY, TRANSACTION_READ_ONLY, OFF, TRUE, FALSE,
    // SHOW targets answered by one server about itself
    WARNINGS, ERRORS, COUNT, MASTER, BINARY, SLAVE, REPLICA, REPLICAS, RELAYLOG, PROCESSLIST, FULL, ENGINE,
    OPEN, PROFILE, PROFILES, STATUS, USER_VARIABLES,
    // functions with routing meaning
    LAST_INSERT_ID, FOUND_ROWS, ROW_COUNT, GET_LOCK, RELEASE_LOCK, IS_FREE_LOCK, IS_USED_LOCK,
    RELEASE_ALL_LOCKS, NEXTVAL, LASTVAL, SETVAL, CURRVAL, SLUICE_LAST_GTID, WARNING_COUNT, ERROR_COUNT,
    CONNECTION_ID;

    private static final Keyword[] VALUES_BY_ORDINAL = values();
    private static final WordTable TABLE_OF_WORDS = build();

    private static WordTable build() {
        List<String> words = new ArrayList<>();
        List<Integer> ordinals = new ArrayList<>();
        for (Keyword k : VALUES_BY_ORDINAL) {
            if (k != NONE) {
                words.add(k.name());
                ordinals.add(k.ordinal());
            }
        }
        return WordTable.of(words, ordinals);
    }

    /** The keyword spelled by {@code bytes[from, to)}, or {@link #NONE}. */
    static Keyword lookup(byte[] bytes, int from, int to, long hash) {
        int ordinal = TABLE_OF_WORDS.lookup(bytes, from, to, hash);
        return ordinal == WordTable.ABSENT ? NONE : VALUES_BY_ORDINAL[ordinal];
    }
}
