package dev.sluice.routing.sql;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads a SET statement: which variables it sets, in which scope, and what that means for routing.
 *
 * <ul>
 *   <li>session variables, SET NAMES / CHARACTER SET, SET [SESSION] TRANSACTION, SET ROLE: a
 *       {@link SessionCommand} for every backend, with the variables it sets for de-duplication;
 *   <li>only user variables: {@link StatementKind#SET_USER_VARIABLE}, primary only (BEHAVIOUR §3);
 *   <li>any GLOBAL / PERSIST assignment: administration on the primary only, because a global
 *       change sent to replicas would reconfigure them;
 *   <li>SET PASSWORD / DEFAULT ROLE: account DDL; MariaDB SET STATEMENT … FOR s: classified as s.
 * </ul>
 * The autocommit and isolation values are read when they are literals; an expression gives
 * {@link AutocommitChange#UNKNOWN} and the server's status flags settle it.
 */
final class SetStatementReader {

    private static final List<String> NAMES_VARIABLES = List.of("character_set_client",
            "character_set_connection", "character_set_results", "collation_connection");
    private static final List<String> CHARSET_VARIABLES = List.of("character_set_client",
            "character_set_connection", "character_set_results");
    private static final String ISOLATION_VARIABLE = "transaction_isolation";
    private static final String READ_ONLY_VARIABLE = "transaction_read_only";
    private static final String CLIENT_CHARSET_VARIABLE = "character_set_client";
    /**
     * Flag sets: an assignment changes only the flags it names ({@code SET optimizer_switch =
     * 'rowid_filter=off'} keeps an earlier {@code 'mrr=on'}), so it builds on the ones before it
     * and a backend opened later must replay them all, in order.
     */
    private static final Set<String> FLAG_SET_VARIABLES = Set.of("optimizer_switch", "optimizer_trace");
    /**
     * User variables set alongside session variables are listed with this prefix, so that a later
     * command setting only the session variables does not replace (and lose) the user variables.
     */
    private static final String USER_VARIABLE_PREFIX = "@";

    private final StatementScanner s;
    private final Lexer lx;
    private final Set<String> variables = new LinkedHashSet<>();
    private boolean userVariables;
    private boolean sessionVariables;
    private boolean globalScope;
    private boolean dependsOnState;
    private boolean oneShot;
    private IsolationLevel isolationLevel;
    /** What character_set_client becomes; null when the statement leaves it or sets it to an expression. */
    private ClientCharset clientCharset;
    private boolean clientCharsetUnknown;

    SetStatementReader(StatementScanner scanner) {
        this.s = scanner;
        this.lx = scanner.lx;
    }

    void read() {
        s.next();
        switch (lx.keyword) {
            case STATEMENT -> {
                setStatement();
                return;
            }
            case PASSWORD -> {
                s.kind = StatementKind.DDL;
                s.scanBody();
                return;
            }
            case DEFAULT -> {
                if (lx.peekKeyword() == Keyword.ROLE) {
                    s.kind = StatementKind.DDL;
                    s.scanBody();
                    return;
                }
            }
            case ROLE -> {
                variables.add(SessionCommand.ROLE);
                sessionVariables = true;
                s.next();
                skipValue();
                finish();
                s.scanBody();
                return;
            }
            default -> {
                // an assignment list
            }
        }
        while (assignment()) {
            if (!(s.depth == 0 && lx.isPunct(','))) {
                finish();
                s.scanBody();
                return;
            }
            s.next();
        }
        s.kind = StatementKind.UNKNOWN;
        s.scanBody();
    }

    /**
     * MariaDB {@code SET STATEMENT var = value [, …] FOR statement}: the inner statement decides.
     * Only one level: a nested SET STATEMENT is not valid SQL, and refusing it keeps the
     * classifier free of recursion however the text is built.
     */
    private void setStatement() {
        if (s.insideSetStatement) {
            s.kind = StatementKind.UNKNOWN;
            s.scanBody();
            return;
        }
        s.insideSetStatement = true;
        s.next();
        while (lx.type != TokenType.END && !(s.depth == 0 && lx.keyword == Keyword.FOR)) {
            if (!s.processToken()) {
                s.kind = StatementKind.UNKNOWN;
                return;
            }
            lx.advance();
        }
        if (lx.type == TokenType.END) {
            s.kind = StatementKind.UNKNOWN;
            return;
        }
        s.next();
        s.dispatch();
    }

    private boolean assignment() {
        Keyword scope = Keyword.NONE;
        boolean assignedHere = lx.peekPunct('=') || lx.peekType() == TokenType.ASSIGN;
        if (lx.type == TokenType.WORD && isScope(lx.keyword) && !assignedHere) {
            scope = lx.keyword;
            s.next();
            assignedHere = lx.peekPunct('=') || lx.peekType() == TokenType.ASSIGN;
        }
        if (lx.type == TokenType.WORD && !assignedHere && !lx.peekPunct('.')) {
            switch (lx.keyword) {
                case TRANSACTION -> {
                    return transaction(scope);
                }
                case NAMES -> {
                    return charset(NAMES_VARIABLES, scope);
                }
                case CHARACTER -> {
                    s.next();
                    return charset(CHARSET_VARIABLES, scope);
                }
                case CHARSET -> {
                    return charset(CHARSET_VARIABLES, scope);
                }
                default -> {
                    return false;
                }
            }
        }
        switch (lx.type) {
            case USER_VARIABLE -> {
                userVariables = true;
                s.set(StatementProperty.USER_VARIABLE_WRITE);
                if (s.userVariables.isEmpty()) {
                    s.userVariables = new java.util.ArrayList<>(1);
                }
                s.userVariables.add(lx.charset.decode(lx.bytes(), lx.start, lx.end));
                String name = USER_VARIABLE_PREFIX + lowerName();
                s.next();
                return value(name);
            }
            case SYSTEM_VARIABLE -> {
                if (lx.scope != Keyword.NONE) {
                    scope = lx.scope;
                }
                noteScope(scope);
                String name = lowerName();
                s.next();
                return value(name);
            }
            case WORD, QUOTED_NAME -> {
                noteScope(scope);
                String name = lowerName();
                s.next();
                if (lx.isPunct('.')) {
                    s.next();
                    name = name + "." + lowerName();
                    s.next();
                }
                return value(name);
            }
            default -> {
                return false;
            }
        }
    }

    private static boolean isScope(Keyword k) {
        return k == Keyword.GLOBAL || k == Keyword.SESSION || k == Keyword.LOCAL || k == Keyword.PERSIST
                || k == Keyword.PERSIST_ONLY;
    }

    private void noteScope(Keyword scope) {
        if (scope == Keyword.GLOBAL || scope == Keyword.PERSIST || scope == Keyword.PERSIST_ONLY) {
            globalScope = true;
        }
    }

    private String lowerName() {
        return TableName.lowerAscii(lx.charset.decode(lx.bytes(), lx.start, lx.end));
    }

    /** {@code = expr} or {@code := expr} up to the next top-level comma. */
    private boolean value(String variable) {
        if (!lx.isPunct('=') && lx.type != TokenType.ASSIGN) {
            return false;
        }
        s.next();
        TokenType firstType = lx.type;
        int firstStart = lx.start;
        int firstEnd = lx.end;
        Keyword firstKeyword = lx.keyword;
        int count = 0;
        boolean readsVariables = false;
        while (!atValueEnd()) {
            readsVariables |= lx.type == TokenType.SYSTEM_VARIABLE || lx.type == TokenType.USER_VARIABLE;
            count++;
            if (!s.processToken()) {
                break;
            }
            lx.advance();
        }
        String name = variable;
        String literal = count == 1 ? literal(firstType, firstStart, firstEnd, firstKeyword) : "";
        switch (name) {
            case "autocommit" -> s.autocommit = autocommit(literal);
            case "tx_isolation", ISOLATION_VARIABLE -> {
                name = ISOLATION_VARIABLE;
                isolationLevel = IsolationLevel.parse(literal).orElse(null);
            }
            case "tx_read_only" -> name = READ_ONLY_VARIABLE;
            case CLIENT_CHARSET_VARIABLE -> clientCharsetBecomes(ClientCharset.named(literal).orElse(null));
            default -> {
                // an ordinary variable
            }
        }
        variables.add(name);
        sessionVariables |= !name.startsWith(USER_VARIABLE_PREFIX);
        dependsOnState |= readsVariables || FLAG_SET_VARIABLES.contains(name);
        return count > 0;
    }

    private boolean atValueEnd() {
        return lx.type == TokenType.END || (s.depth == 0 && (lx.isPunct(',') || lx.isPunct(';')));
    }

    /** The text of a one-token value (a number, a word, or a string's content); "" for anything else. */
    private String literal(TokenType type, int start, int end, Keyword keyword) {
        boolean plain = type == TokenType.NUMBER || type == TokenType.STRING
                || (type == TokenType.WORD && keyword != Keyword.DEFAULT);
        return plain ? lx.charset.decode(lx.bytes(), start, end) : "";
    }

    private static AutocommitChange autocommit(String literal) {
        return switch (literal.toLowerCase(Locale.ROOT)) {
            case "1", "on", "true" -> AutocommitChange.ON;
            case "0", "off", "false" -> AutocommitChange.OFF;
            default -> AutocommitChange.UNKNOWN;
        };
    }

    /** {@code NAMES x [COLLATE y]} or {@code CHARACTER SET x}: x becomes the client's character set. */
    private boolean charset(List<String> names, Keyword scope) {
        noteScope(scope);
        variables.addAll(names);
        sessionVariables = true;
        s.next();
        boolean named = lx.type == TokenType.WORD && lx.keyword != Keyword.DEFAULT || lx.type == TokenType.STRING;
        clientCharsetBecomes(named ? ClientCharset.named(literal(lx.type, lx.start, lx.end, lx.keyword)).orElse(null)
                : null);
        return skipValue();
    }

    private void clientCharsetBecomes(ClientCharset charset) {
        clientCharset = charset;
        clientCharsetUnknown = charset == null;
    }

    private boolean skipValue() {
        int count = 0;
        while (!atValueEnd()) {
            count++;
            if (!s.processToken()) {
                break;
            }
            lx.advance();
        }
        return count > 0;
    }

    /** {@code [scope] TRANSACTION ISOLATION LEVEL x | READ ONLY | READ WRITE [, …]}. */
    private boolean transaction(Keyword scope) {
        noteScope(scope);
        oneShot |= scope == Keyword.NONE;
        s.next();
        while (true) {
            if (lx.keyword == Keyword.ISOLATION) {
                s.next();
                if (lx.keyword != Keyword.LEVEL) {
                    return false;
                }
                s.next();
                isolationLevel = level();
                if (isolationLevel == null) {
                    return false;
                }
                variables.add(ISOLATION_VARIABLE);
                sessionVariables = true;
            } else if (lx.keyword == Keyword.READ && (lx.peekKeyword() == Keyword.ONLY
                    || lx.peekKeyword() == Keyword.WRITE)) {
                s.next();
                s.next();
                variables.add(READ_ONLY_VARIABLE);
                sessionVariables = true;
            } else {
                return false;
            }
            boolean more = lx.isPunct(',') && (lx.peekKeyword() == Keyword.ISOLATION || lx.peekKeyword() == Keyword.READ);
            if (!more) {
                return true;
            }
            s.next();
        }
    }

    /** READ UNCOMMITTED | READ COMMITTED | REPEATABLE READ | SERIALIZABLE; leaves the lexer after it. */
    private IsolationLevel level() {
        Keyword first = lx.keyword;
        Keyword second = lx.peekKeyword();
        IsolationLevel level = null;
        if (first == Keyword.SERIALIZABLE) {
            level = IsolationLevel.SERIALIZABLE;
        } else if (first == Keyword.READ && second == Keyword.COMMITTED) {
            level = IsolationLevel.READ_COMMITTED;
        } else if (first == Keyword.READ && second == Keyword.UNCOMMITTED) {
            level = IsolationLevel.READ_UNCOMMITTED;
        } else if (first == Keyword.REPEATABLE && second == Keyword.READ) {
            level = IsolationLevel.REPEATABLE_READ;
        }
        if (level != null) {
            s.next();
            if (level != IsolationLevel.SERIALIZABLE) {
                s.next();
            }
        }
        return level;
    }

    private void finish() {
        if (globalScope) {
            s.kind = StatementKind.ADMINISTRATION;
            s.set(StatementProperty.SETS_GLOBAL);
            s.autocommit = AutocommitChange.NONE;
            return;
        }
        if (!sessionVariables) {
            s.kind = userVariables ? StatementKind.SET_USER_VARIABLE : StatementKind.UNKNOWN;
            return;
        }
        s.kind = StatementKind.SET_SESSION;
        // An expression or DEFAULT names no character set Sluice can tell: it keeps reading in the last one known.
        java.util.Optional<ClientCharset> becomes = clientCharsetUnknown ? java.util.Optional.empty()
                : java.util.Optional.ofNullable(clientCharset);
        s.sessionCommand = new SessionCommand(s.text(), variables, dependsOnState, !oneShot, lx.charset, becomes);
        if (isolationLevel != null) {
            s.isolation = new IsolationChange(isolationLevel, !oneShot);
        }
    }
}
