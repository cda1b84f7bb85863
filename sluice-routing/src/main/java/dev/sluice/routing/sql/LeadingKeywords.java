package dev.sluice.routing.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Decides a statement's kind from its first keywords (BEHAVIOUR §3's lists), reads the few clauses that
 * carry session facts (START TRANSACTION options, temporary table names, USE), then hands the rest
 * of the text to the {@link StatementScanner} body walk.
 */
final class LeadingKeywords {

    private final StatementScanner s;
    private final Lexer lx;

    LeadingKeywords(StatementScanner scanner) {
        this.s = scanner;
        this.lx = scanner.lx;
    }

    void dispatch() {
        if (lx.type == TokenType.END) {
            s.kind = StatementKind.EMPTY;
            return;
        }
        if (lx.isPunct('(')) {
            // (SELECT …) UNION (SELECT …): a query only if a query keyword follows the parentheses
            while (lx.isPunct('(')) {
                s.depth++;
                s.next();
            }
            Keyword inner = lx.keyword;
            boolean query = lx.type == TokenType.WORD
                    && (inner == Keyword.SELECT || inner == Keyword.VALUES || inner == Keyword.TABLE);
            s.kind = query ? StatementKind.SELECT : StatementKind.UNKNOWN;
            s.scanBody();
            return;
        }
        if (lx.type != TokenType.WORD) {
            s.scanBody();
            return;
        }
        Keyword first = lx.keyword;
        switch (first) {
            case SELECT, VALUES, TABLE -> s.kind = StatementKind.SELECT;
            case WITH -> {
                s.withPending = true;
                s.next();
                s.cteNameExpected = true;
            }
            case INSERT -> s.kind = StatementKind.INSERT;
            case REPLACE -> s.kind = StatementKind.REPLACE;
            case DELETE -> s.kind = StatementKind.DELETE;
            case UPDATE -> {
                s.kind = StatementKind.UPDATE;
                s.next();
                s.tableExpected = true;
                s.fromListDepth = 0;
            }
            case LOAD -> s.kind = lx.peekKeyword() == Keyword.INDEX ? StatementKind.ADMINISTRATION : StatementKind.LOAD;
            case SHOW -> show();
            case DESCRIBE, DESC, EXPLAIN -> explain();
            case ANALYZE -> analyze();
            case DO -> s.kind = StatementKind.DO;
            case HELP -> s.kind = StatementKind.HELP;
            case CREATE -> create();
            case DROP -> drop();
            case ALTER, TRUNCATE, RENAME, GRANT, REVOKE -> s.kind = StatementKind.DDL;
            case SET -> {
                new SetStatementReader(s).read();
                return;
            }
            case USE -> use();
            case START -> {
                if (lx.peekKeyword() == Keyword.TRANSACTION) {
                    startTransaction();
                } else {
                    s.kind = StatementKind.ADMINISTRATION;
                }
            }
            case BEGIN -> begin();
            case COMMIT, ROLLBACK -> endTransaction(first == Keyword.COMMIT);
            case SAVEPOINT -> transaction(TransactionControl.SAVEPOINT);
            case RELEASE -> {
                if (lx.peekKeyword() == Keyword.SAVEPOINT) {
                    transaction(TransactionControl.RELEASE_SAVEPOINT);
                }
            }
            case XA -> xa();
            case LOCK -> {
                if (isTables(lx.peekKeyword())) {
                    s.kind = StatementKind.LOCK_TABLES;
                    s.cause(LockCause.LOCK_TABLES);
                } else {
                    s.kind = StatementKind.ADMINISTRATION;
                }
            }
            case UNLOCK -> s.kind = isTables(lx.peekKeyword()) ? StatementKind.UNLOCK_TABLES
                    : StatementKind.ADMINISTRATION;
            case HANDLER -> {
                s.kind = StatementKind.HANDLER;
                s.set(StatementProperty.PINS_SESSION);
            }
            case CALL -> {
                s.kind = StatementKind.CALL;
                s.set(StatementProperty.PINS_SESSION);
                s.cause(LockCause.STORED_PROCEDURE);
            }
            case PREPARE -> prepared(StatementKind.PREPARE);
            case EXECUTE -> {
                if (lx.peekKeyword() == Keyword.IMMEDIATE) {
                    s.kind = StatementKind.EXECUTE;
                } else {
                    prepared(StatementKind.EXECUTE);
                }
            }
            case DEALLOCATE -> prepared(StatementKind.DEALLOCATE);
            case KILL -> s.kind = StatementKind.KILL;
            case GET -> {
                Keyword second = lx.peekKeyword();
                if (second == Keyword.DIAGNOSTICS || second == Keyword.CURRENT || second == Keyword.STACKED) {
                    s.kind = StatementKind.DIAGNOSTICS;
                    s.set(StatementProperty.PREVIOUS_TARGET);
                }
            }
            case FLUSH -> flush();
            case BACKUP -> {
                // MariaDB's backup locks (BACKUP STAGE …, BACKUP LOCK t) stay with the connection until
                // BACKUP STAGE END / BACKUP UNLOCK, which UNLOCK TABLES does not release.
                s.kind = StatementKind.ADMINISTRATION;
                Keyword what = lx.peekKeyword();
                if (what == Keyword.STAGE || what == Keyword.LOCK) {
                    s.cause(LockCause.LOCK_TABLES);
                }
            }
            case RESET, PURGE, OPTIMIZE, REPAIR, CHECK, CHECKSUM, INSTALL, UNINSTALL, CACHE, SHUTDOWN,
                 RESTART, CLONE, BINLOG, CHANGE, STOP, SIGNAL, RESIGNAL ->
                    s.kind = StatementKind.ADMINISTRATION;
            case IF, CASE, LOOP, WHILE, REPEAT, DECLARE -> compound();
            default -> s.kind = StatementKind.UNKNOWN;
        }
        s.scanBody();
    }

    /**
     * FLUSH TABLES … WITH READ LOCK and FLUSH TABLES … FOR EXPORT take locks that stay with the
     * connection until UNLOCK TABLES, as LOCK TABLES does: the session's later statements must meet
     * them on the primary, and a pooled connection holding them must not pass to another client.
     * Every other FLUSH is administration.
     */
    private void flush() {
        s.kind = StatementKind.ADMINISTRATION;
        s.next();
        while (lx.type == TokenType.WORD && (lx.keyword == Keyword.NO_WRITE_TO_BINLOG || lx.keyword == Keyword.LOCAL)) {
            s.next();
        }
        if (lx.type != TokenType.WORD || !isTables(lx.keyword)) {
            return;
        }
        while (lx.type != TokenType.END && !lx.isPunct(';')) {
            Keyword next = lx.type == TokenType.WORD ? lx.peekKeyword() : Keyword.NONE;
            if ((lx.keyword == Keyword.WITH && next == Keyword.READ)
                    || (lx.keyword == Keyword.FOR && next == Keyword.EXPORT)) {
                s.kind = StatementKind.LOCK_TABLES;
                s.cause(LockCause.LOCK_TABLES);
                return;
            }
            s.next();
        }
    }

    private static boolean isTables(Keyword k) {
        return k == Keyword.TABLE || k == Keyword.TABLES;
    }

    private void show() {
        s.kind = StatementKind.SHOW;
        s.next();
        while (lx.keyword == Keyword.FULL || lx.keyword == Keyword.GLOBAL || lx.keyword == Keyword.SESSION
                || lx.keyword == Keyword.LOCAL || lx.keyword == Keyword.ALL) {
            if (lx.keyword == Keyword.ALL) {
                s.set(StatementProperty.NODE_SPECIFIC);
            }
            s.next();
        }
        if (lx.type != TokenType.WORD) {
            return;
        }
        switch (lx.keyword) {
            case WARNINGS, ERRORS, COUNT -> s.set(StatementProperty.PREVIOUS_TARGET);
            case MASTER, BINARY, BINLOG, SLAVE, REPLICA, REPLICAS, RELAYLOG, PROCESSLIST, ENGINE, OPEN, PROFILE,
                 PROFILES, STATUS, USER_VARIABLES, EXPLAIN, ANALYZE -> s.set(StatementProperty.NODE_SPECIFIC);
            default -> {
                // other SHOW statements describe data or settings every replica has
            }
        }
    }

    private void analyze() {
        Keyword target = lx.peekKeyword();
        if (target == Keyword.TABLE || target == Keyword.NO_WRITE_TO_BINLOG || target == Keyword.LOCAL) {
            s.kind = StatementKind.ADMINISTRATION;
        } else {
            explain();
        }
    }

    /** EXPLAIN / DESCRIBE / MariaDB ANALYZE: a read unless what it explains (or runs) writes. */
    private void explain() {
        s.kind = StatementKind.DESCRIBE;
        s.next();
        while (lx.keyword == Keyword.EXTENDED || lx.keyword == Keyword.PARTITIONS || lx.keyword == Keyword.ANALYZE
                || lx.keyword == Keyword.FORMAT) {
            if (lx.keyword == Keyword.FORMAT) {
                s.next();
                if (lx.isPunct('=')) {
                    s.next();
                }
            }
            s.next();
        }
        switch (lx.keyword) {
            case SELECT, WITH, TABLE, VALUES -> {
                // explains a read
            }
            case INSERT, UPDATE, DELETE, REPLACE -> s.kind = StatementKind.EXPLAIN_WRITE;
            case FOR -> s.set(StatementProperty.NODE_SPECIFIC);
            default -> s.tableExpected = !lx.isPunct('(');
        }
    }

    private void create() {
        s.kind = StatementKind.DDL;
        s.next();
        if (lx.keyword == Keyword.OR) {
            s.next();
            s.next();
        }
        if (lx.keyword != Keyword.TEMPORARY) {
            return;
        }
        s.next();
        if (lx.keyword != Keyword.TABLE) {
            return;
        }
        s.next();
        if (lx.keyword == Keyword.IF) {
            s.next();
            s.next();
            s.next();
        }
        Optional<TableName> name = NameReader.tableName(lx);
        if (name.isPresent()) {
            s.created = List.of(name.get());
            s.cause(LockCause.TEMPORARY_TABLE);
            s.next();
        }
    }

    private void drop() {
        s.kind = StatementKind.DDL;
        s.next();
        if (lx.keyword == Keyword.PREPARE) {
            prepared(StatementKind.DEALLOCATE);
            return;
        }
        if (lx.keyword == Keyword.TEMPORARY) {
            s.next();
        }
        if (!isTables(lx.keyword)) {
            return;
        }
        s.next();
        if (lx.keyword == Keyword.IF) {
            s.next();
            s.next();
        }
        List<TableName> names = new ArrayList<>();
        while (names.size() < StatementScanner.MAX_DROPPED_NAMES) {
            Optional<TableName> name = NameReader.tableName(lx);
            if (name.isEmpty()) {
                break;
            }
            names.add(name.get());
            s.next();
            if (!lx.isPunct(',')) {
                break;
            }
            s.next();
        }
        s.dropped = List.copyOf(names);
    }

    private void use() {
        s.kind = StatementKind.USE;
        s.next();
        if (NameReader.isName(lx)) {
            s.schema = NameReader.text(lx);
            s.sessionCommand = new SessionCommand(s.text(), Set.of(SessionCommand.SCHEMA), false, true, lx.charset);
            s.next();
        }
    }

    private void transaction(TransactionControl control) {
        s.kind = StatementKind.TRANSACTION;
        s.transaction = control;
        s.next();
    }

    private void startTransaction() {
        transaction(TransactionControl.BEGIN);
        s.next();
        while (true) {
            if (lx.keyword == Keyword.READ && lx.peekKeyword() == Keyword.ONLY) {
                s.transactionOptions |= 1 << TransactionOption.READ_ONLY.ordinal();
            } else if (lx.keyword == Keyword.READ && lx.peekKeyword() == Keyword.WRITE) {
                s.transactionOptions |= 1 << TransactionOption.READ_WRITE.ordinal();
            } else if (lx.keyword == Keyword.WITH && lx.peekKeyword() == Keyword.CONSISTENT) {
                s.transactionOptions |= 1 << TransactionOption.WITH_CONSISTENT_SNAPSHOT.ordinal();
                s.next();
            } else {
                return;
            }
            s.next();
            s.next();
            if (!lx.isPunct(',')) {
                return;
            }
            s.next();
        }
    }

    private void begin() {
        if (lx.peekKeyword() == Keyword.NOT) {
            compound();
            s.blockDepth = 1;
            s.next();
            return;
        }
        transaction(TransactionControl.BEGIN);
    }

    private void endTransaction(boolean commit) {
        transaction(commit ? TransactionControl.COMMIT : TransactionControl.ROLLBACK);
        if (lx.keyword == Keyword.WORK) {
            s.next();
        }
        if (!commit && lx.keyword == Keyword.TO) {
            s.transaction = TransactionControl.ROLLBACK_TO_SAVEPOINT;
        } else if (lx.keyword == Keyword.AND && lx.peekKeyword() == Keyword.CHAIN) {
            s.transaction = commit ? TransactionControl.COMMIT_AND_CHAIN : TransactionControl.ROLLBACK_AND_CHAIN;
        }
    }

    private void xa() {
        s.kind = StatementKind.XA;
        s.next();
        s.transaction = switch (lx.keyword) {
            case START, BEGIN -> TransactionControl.XA_START;
            case END -> TransactionControl.XA_END;
            case PREPARE -> TransactionControl.XA_PREPARE;
            case COMMIT -> TransactionControl.XA_COMMIT;
            case ROLLBACK -> TransactionControl.XA_ROLLBACK;
            case RECOVER -> TransactionControl.XA_RECOVER;
            default -> TransactionControl.NONE;
        };
        s.next();
    }

    private void prepared(StatementKind kind) {
        s.kind = kind;
        s.cause(LockCause.PREPARE);
    }

    private void compound() {
        s.kind = StatementKind.COMPOUND;
        s.set(StatementProperty.PINS_SESSION);
        s.cause(LockCause.STORED_PROCEDURE);
    }
}
