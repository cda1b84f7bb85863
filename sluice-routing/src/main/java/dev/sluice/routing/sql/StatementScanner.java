package dev.sluice.routing.sql;

import dev.sluice.routing.gtid.GtidPosition;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * One classification: reads the leading hints, decides the kind from the first keywords
 * ({@link #dispatch()}), then walks every remaining token once ({@link #scanBody()}) collecting
 * properties. Facts are accumulated in fields and frozen into a {@link Statement} at the end. One
 * scanner per thread, reused statement after statement ({@link #scan} resets every field), so a
 * classification allocates nothing but its result.
 *
 * <p>The body walk tracks just enough context to be right about routing: parenthesis depth,
 * BEGIN/CASE … END nesting (so the semicolons inside a CREATE PROCEDURE body do not look like a
 * second statement), whether the next name is in a table position (FROM, JOIN, UPDATE, INTO,
 * TABLE, and commas of a FROM list), and the header of a WITH statement.
 */
final class StatementScanner {

    /** A DROP TABLE naming more tables than this keeps only the first ones (session temp tables are few). */
    static final int MAX_DROPPED_NAMES = 1024;
    /** Routine definitions are recognised by a keyword among the first tokens of a CREATE. */
    private static final int ROUTINE_KEYWORD_WINDOW = 12;
    /**
     * {@code information_schema.optimizer_trace} holds the trace of the connection's previous
     * statement: like SHOW WARNINGS, it is read where that statement ran.
     */
    private static final long INFORMATION_SCHEMA = WordHash.of("information_schema");
    private static final long OPTIMIZER_TRACE = WordHash.of("optimizer_trace");
    /**
     * The information_schema tables of SHOW statements that are about one server (PROCESSLIST,
     * USER_VARIABLES, STATUS): a read of them is {@link StatementProperty#NODE_SPECIFIC} too, so
     * that it sees the sessions, variables and counters of the node that runs the client's writes.
     */
    private static final long[] ONE_SERVERS_TABLES = {WordHash.of("processlist"), WordHash.of("user_variables"),
        WordHash.of("global_status"), WordHash.of("session_status")};

    private byte[] buf;
    private int from;
    private int to;
    final Lexer lx = new Lexer();
    private final LeadingKeywords leadingKeywords = new LeadingKeywords(this);

    // facts
    StatementKind kind;
    Hint hint;
    Optional<GtidPosition> token;
    int props;
    int causes;
    TransactionControl transaction;
    int transactionOptions;
    AutocommitChange autocommit;
    IsolationChange isolation;
    SessionCommand sessionCommand;
    String schema;
    List<TableName> created;
    List<TableName> dropped;
    /** The user variables a {@code SET @v = …} assigns, names as written. */
    List<String> userVariables;
    private long tables;
    private boolean routineDefinition;

    // body walk state
    int depth;
    int blockDepth;
    int fromListDepth;
    boolean tableExpected;
    boolean cteNameExpected;
    boolean withPending;
    boolean insideSetStatement;
    private boolean intoActive;
    private TokenType prevType;
    private Keyword prevKeyword;
    private int prevPunct;
    private int tokenIndex;
    private final LastGtidShape lastGtidShape = new LastGtidShape();

    /**
     * Classifies {@code text[start, stop)}. Every field is set here, so a scanner can be reused
     * for the next statement of its thread without any state leaking from one to the next.
     */
    /** The character set of the text being scanned. */
    ClientCharset charset = ClientCharset.UTF8MB4;

    Statement scan(byte[] text, int start, int stop) {
        return scan(text, start, stop, ClientCharset.UTF8MB4);
    }

    Statement scan(byte[] text, int start, int stop, ClientCharset textCharset) {
        buf = text;
        charset = textCharset;
        from = start;
        to = stop;
        kind = StatementKind.UNKNOWN;
        hint = Hint.NONE;
        token = Optional.empty();
        props = 0;
        causes = 0;
        transaction = TransactionControl.NONE;
        transactionOptions = 0;
        autocommit = AutocommitChange.NONE;
        isolation = null;
        sessionCommand = null;
        schema = null;
        created = List.of();
        dropped = List.of();
        userVariables = List.of();
        tables = 0;
        routineDefinition = false;
        depth = 0;
        blockDepth = 0;
        fromListDepth = -1;
        tableExpected = false;
        cteNameExpected = false;
        withPending = false;
        insideSetStatement = false;
        intoActive = false;
        prevType = TokenType.END;
        prevKeyword = Keyword.NONE;
        prevPunct = 0;
        tokenIndex = 0;
        lastGtidShape.reset();
        int sqlStart = start;
        if (HintReader.startsWithComment(text, start, stop)) {
            HintReader hints = new HintReader();
            sqlStart = hints.read(text, start, stop);
            hint = hints.hint;
            token = hints.token;
        }
        try {
            lx.reset(text, sqlStart, stop, textCharset);
            lx.advance();
            dispatch();
            return build();
        } finally {
            lx.release();
            buf = null;
        }
    }

    void set(StatementProperty property) {
        props |= 1 << property.ordinal();
    }

    boolean has(StatementProperty property) {
        return (props & (1 << property.ordinal())) != 0;
    }

    void cause(LockCause cause) {
        causes |= 1 << cause.ordinal();
    }

    /** The whole text, for session commands that must be sent and replayed. */
    String text() {
        return charset.decode(buf, from, to);
    }

    /** Decides the kind from the first keyword(s), then walks the rest. */
    void dispatch() {
        leadingKeywords.dispatch();
    }

    /** Marks the current token processed and moves on (for readers of leading keywords). */
    void next() {
        track();
        lx.advance();
    }

    /** Walks the tokens from the current one to the end of the (first) statement. */
    void scanBody() {
        while (processToken()) {
            lx.advance();
        }
    }

    /**
     * Takes the current token into account; false at the end of the statement. A semicolon at
     * block depth 0 ends it, and anything after it makes the text a multi-statement.
     */
    boolean processToken() {
        boolean tablePosition = tableExpected;
        boolean ctePosition = cteNameExpected;
        tableExpected = false;
        cteNameExpected = false;
        switch (lx.type) {
            case END -> {
                return false;
            }
            case PUNCT -> {
                if (!punctuation(lx.punct)) {
                    return false;
                }
            }
            case USER_VARIABLE -> userVariable();
            case SYSTEM_VARIABLE -> {
                set(StatementProperty.SYSTEM_VARIABLE_READ);
                if (lx.scope != Keyword.GLOBAL && !BuiltinWords.isNodeIdentityVariable(lx)) {
                    set(StatementProperty.SESSION_VARIABLE_READ);
                }
                if (lx.keyword == Keyword.WARNING_COUNT || lx.keyword == Keyword.ERROR_COUNT) {
                    set(StatementProperty.PREVIOUS_TARGET);
                }
            }
            case WORD, QUOTED_NAME, STRING -> name(tablePosition, ctePosition);
            default -> {
                // numbers and := need no attention
            }
        }
        if (intoActive && lx.type != TokenType.USER_VARIABLE && !lx.isPunct(',') && lx.keyword != Keyword.INTO) {
            intoActive = false;
        }
        track();
        return true;
    }

    /** Remembers the token just processed, for the rules that look one token back. */
    private void track() {
        lastGtidShape.follow(lx);
        prevType = lx.type;
        prevKeyword = lx.type == TokenType.WORD ? lx.keyword : Keyword.NONE;
        prevPunct = lx.type == TokenType.PUNCT ? lx.punct : 0;
        tokenIndex++;
    }

    private boolean punctuation(int c) {
        switch (c) {
            case '(' -> depth++;
            case ')' -> {
                depth = Math.max(0, depth - 1);
                if (fromListDepth > depth) {
                    fromListDepth = -1;
                }
            }
            case ',' -> {
                if (depth == fromListDepth) {
                    tableExpected = true;
                }
                if (withPending && depth == 0) {
                    cteNameExpected = true;
                }
            }
            case ';' -> {
                if (blockDepth == 0) {
                    if (lx.peekType() != TokenType.END) {
                        set(StatementProperty.MULTI_STATEMENT);
                        set(StatementProperty.PINS_SESSION);
                        cause(LockCause.MULTI_STATEMENT);
                    }
                    lastGtidShape.follow(lx);
                    return false;
                }
            }
            default -> {
                // operators
            }
        }
        return true;
    }

    private void userVariable() {
        boolean accountHost = !lx.spaceBefore && (prevType == TokenType.STRING || prevType == TokenType.WORD
                || prevType == TokenType.QUOTED_NAME);
        if (accountHost) {
            return;
        }
        if (intoActive || lx.peekType() == TokenType.ASSIGN) {
            set(StatementProperty.USER_VARIABLE_WRITE);
        } else {
            set(StatementProperty.USER_VARIABLE_READ);
        }
    }

    private void name(boolean tablePosition, boolean ctePosition) {
        boolean call = lx.type != TokenType.STRING && lx.peekPunct('(');
        if (tablePosition && !(lx.keyword == Keyword.DUAL || lx.keyword == Keyword.LATERAL)
                && !(call && BuiltinWords.isBuiltinFunction(lx))) {
            long hash = lx.hash;
            long qualifier = 0;
            while (lx.peekPunct('.')) {
                track();
                lx.advance();
                if (lx.peekType() != TokenType.WORD && lx.peekType() != TokenType.QUOTED_NAME) {
                    break;
                }
                track();
                lx.advance();
                qualifier = hash;
                hash = lx.hash;
            }
            if (qualifier == INFORMATION_SCHEMA) {
                informationSchemaTable(hash);
            }
            tables |= TableFingerprint.ofHash(hash);
            return;
        }
        if (lx.type == TokenType.WORD) {
            keyword(lx.keyword);
        }
        if (call) {
            call(ctePosition);
        }
    }

    private void informationSchemaTable(long name) {
        if (name == OPTIMIZER_TRACE) {
            set(StatementProperty.PREVIOUS_TARGET);
            return;
        }
        for (long oneServers : ONE_SERVERS_TABLES) {
            if (name == oneServers) {
                set(StatementProperty.NODE_SPECIFIC);
            }
        }
    }

    private void call(boolean ctePosition) {
        if (prevType == TokenType.PUNCT && prevPunct == '.') {
            set(StatementProperty.STORED_FUNCTION);
            return;
        }
        boolean declaresColumns = ctePosition || prevKeyword == Keyword.AS;
        if (lx.type == TokenType.QUOTED_NAME) {
            if (!declaresColumns) {
                set(StatementProperty.STORED_FUNCTION);
            }
            return;
        }
        switch (lx.keyword) {
            case LAST_INSERT_ID -> set(StatementProperty.LAST_INSERT_ID);
            case FOUND_ROWS, ROW_COUNT -> set(StatementProperty.PREVIOUS_TARGET);
            case GET_LOCK, RELEASE_LOCK, IS_FREE_LOCK, IS_USED_LOCK, RELEASE_ALL_LOCKS ->
                    set(StatementProperty.LOCKING_FUNCTION);
            case NEXTVAL, LASTVAL, SETVAL -> set(StatementProperty.SEQUENCE);
            case CONNECTION_ID -> set(StatementProperty.CONNECTION_ID);
            default -> {
                if (!declaresColumns && !BuiltinWords.isBuiltinFunction(lx) && !BuiltinWords.isNonCallWord(lx)) {
                    set(StatementProperty.STORED_FUNCTION);
                }
            }
        }
    }

    private void keyword(Keyword k) {
        switch (k) {
            case FROM -> {
                tableExpected = true;
                fromListDepth = depth;
            }
            case JOIN, STRAIGHT_JOIN -> tableExpected = true;
            case TABLE -> tableExpected = !lx.peekPunct('(');
            case WHERE, GROUP, ORDER, HAVING, LIMIT, UNION, EXCEPT, INTERSECT, WINDOW, SET, VALUES, PROCEDURE ->
                    endFromList();
            case SELECT -> {
                endFromList();
                withMain(StatementKind.SELECT);
            }
            case INSERT, DELETE, REPLACE -> withMain(k == Keyword.INSERT ? StatementKind.INSERT
                    : k == Keyword.DELETE ? StatementKind.DELETE : StatementKind.REPLACE);
            case UPDATE -> {
                if (withPending && depth == 0) {
                    withMain(StatementKind.UPDATE);
                    tableExpected = true;
                    fromListDepth = 0;
                }
            }
            case INTO -> into();
            case FOR -> {
                endFromList();
                if (lx.peekKeyword() == Keyword.UPDATE || lx.peekKeyword() == Keyword.SHARE) {
                    set(StatementProperty.LOCKING_READ);
                }
            }
            case LOCK -> {
                endFromList();
                if (lx.peekKeyword() == Keyword.IN) {
                    set(StatementProperty.LOCKING_READ);
                }
            }
            case NEXT, PREVIOUS -> {
                if (lx.peekKeyword() == Keyword.VALUE) {
                    set(StatementProperty.SEQUENCE);
                }
            }
            case NEXTVAL, CURRVAL, LASTVAL -> {
                if (prevType == TokenType.PUNCT && prevPunct == '.') {
                    set(StatementProperty.SEQUENCE);
                }
            }
            case CASE, BEGIN -> blockDepth++;
            case END -> endBlock();
            case RETURNING -> {
                endFromList();
                set(StatementProperty.RETURNING);
            }
            case RECURSIVE -> cteNameExpected = withPending;
            default -> {
                // not structural
            }
        }
        if (kind == StatementKind.DDL && tokenIndex < ROUTINE_KEYWORD_WINDOW
                && (k == Keyword.PROCEDURE || k == Keyword.FUNCTION || k == Keyword.TRIGGER || k == Keyword.EVENT
                || k == Keyword.PACKAGE)) {
            routineDefinition = true;
        }
    }

    private void into() {
        endFromList();
        if (kind.isRead()) {
            set(StatementProperty.SELECT_INTO);
            intoActive = true;
        } else if (kind == StatementKind.INSERT || kind == StatementKind.REPLACE) {
            tableExpected = true;
        }
    }

    private void endBlock() {
        Keyword after = lx.peekKeyword();
        if (after == Keyword.IF || after == Keyword.LOOP || after == Keyword.WHILE || after == Keyword.REPEAT
                || after == Keyword.FOR) {
            return;
        }
        blockDepth = Math.max(0, blockDepth - 1);
        if (after == Keyword.CASE) {
            track();
            lx.advance();
        }
    }

    private void endFromList() {
        if (depth == fromListDepth) {
            fromListDepth = -1;
        }
    }

    private void withMain(StatementKind mainKind) {
        if (withPending && depth == 0) {
            kind = mainKind;
            withPending = false;
        }
    }

    private Statement build() {
        if (lx.malformed || depth > 0) {
            set(StatementProperty.MALFORMED);
        }
        if (withPending) {
            kind = StatementKind.UNKNOWN;
        }
        if (lastGtidShape.complete() && !has(StatementProperty.MULTI_STATEMENT)
                && !has(StatementProperty.MALFORMED)) {
            // sluice_last_gtid() is no server function: alone, Sluice answers it; anywhere else the
            // primary's "does not exist" error is the honest answer, so it stays a stored-function call
            props &= ~bit(StatementProperty.STORED_FUNCTION);
            set(StatementProperty.SLUICE_LAST_GTID);
        }
        if (routineDefinition) {
            // a routine body is stored, not run: its variables and calls do not happen now
            props &= ~(bit(StatementProperty.USER_VARIABLE_READ) | bit(StatementProperty.USER_VARIABLE_WRITE)
                    | bit(StatementProperty.LOCKING_FUNCTION) | bit(StatementProperty.SELECT_INTO)
                    | bit(StatementProperty.LOCKING_READ) | bit(StatementProperty.PREVIOUS_TARGET)
                    | bit(StatementProperty.LAST_INSERT_ID) | bit(StatementProperty.SEQUENCE));
        }
        if (has(StatementProperty.USER_VARIABLE_READ) || has(StatementProperty.USER_VARIABLE_WRITE)) {
            cause(LockCause.USER_VARIABLE);
        }
        if (has(StatementProperty.LOCKING_FUNCTION)) {
            cause(LockCause.GET_LOCK);
        }
        if (has(StatementProperty.STORED_FUNCTION) && !routineDefinition && kind != StatementKind.CALL) {
            // a procedure's own cause covers CALL p(); a routine body's calls run later
            cause(LockCause.STORED_FUNCTION);
        }
        return new Statement(kind, hint, token, props, causes, transaction, transactionOptions, autocommit,
                Optional.ofNullable(isolation), Optional.ofNullable(sessionCommand), Optional.ofNullable(schema),
                created, dropped, tables, kind == StatementKind.SET_USER_VARIABLE ? userVariables : List.of(),
                has(StatementProperty.SLUICE_LAST_GTID) ? Optional.of(lastGtidShape.column()) : Optional.empty());
    }

    private static int bit(StatementProperty p) {
        return 1 << p.ordinal();
    }
}
