package dev.sluice.routing.sql;

import java.util.Locale;
import java.util.Set;

/**
 * One item of a select list as {@link ConnectionIdText} walks it: where its text starts, its last
 * two tokens (enough to tell whether it ends in an alias) and whether it holds a call to rewrite.
 */
final class SelectItem {

    /** Words that may open a select list before its first item; the column name leaves them out. */
    private static final Set<String> SELECT_OPTIONS = Set.of("ALL", "DISTINCT", "DISTINCTROW", "HIGH_PRIORITY",
            "STRAIGHT_JOIN", "SQL_SMALL_RESULT", "SQL_BIG_RESULT", "SQL_BUFFER_RESULT", "SQL_CACHE", "SQL_NO_CACHE",
            "SQL_CALC_FOUND_ROWS");
    /** Words that end an expression without being an alias. */
    private static final Set<String> VALUE_WORDS = Set.of("NULL", "TRUE", "FALSE", "UNKNOWN", "END");
    /** Words an expression goes on after: what follows them is an operand, not an alias. */
    private static final Set<String> OPERATOR_WORDS = Set.of("AND", "OR", "NOT", "XOR", "IS", "LIKE", "IN", "BETWEEN",
            "REGEXP", "RLIKE", "DIV", "MOD", "BINARY", "COLLATE", "INTERVAL", "THEN", "ELSE", "WHEN", "CASE", "ESCAPE",
            "SOUNDS", "DISTINCT", "SELECT");

    private final int listDepth;
    private int textStart;
    private boolean started;
    private boolean holdsCall;
    private boolean aliasKeyword;
    private final Token last = new Token();
    private final Token previous = new Token();

    SelectItem(int listDepth, int textStart) {
        this.listDepth = listDepth;
        this.textStart = textStart;
    }

    int listDepth() {
        return listDepth;
    }

    /** Where the item's text starts, blanks and comments before it included. */
    int textStart() {
        return textStart;
    }

    /** Where the item's last token ends (after its closing quote, if any). */
    int lastEnd() {
        return last.rawEnd;
    }

    boolean holdsCall() {
        return holdsCall;
    }

    void holdCall() {
        holdsCall = true;
    }

    boolean lastIs(int punct) {
        return started && last.type == TokenType.PUNCT && last.punct == punct;
    }

    /** The next item starts after the comma ending at {@code after}. */
    void restartAfter(int after) {
        textStart = after;
        started = false;
        holdsCall = false;
        aliasKeyword = false;
    }

    /** Takes the lexer's current token, at parenthesis depth {@code depth}, as part of the item. */
    void note(Lexer lx, int depth) {
        if (!started && lx.type == TokenType.WORD
                && SELECT_OPTIONS.contains(NameReader.text(lx).toUpperCase(Locale.ROOT))) {
            textStart = lx.end;
            return;
        }
        if (lx.type == TokenType.WORD && lx.keyword == Keyword.AS && depth == listDepth) {
            aliasKeyword = true;
        }
        started = true;
        previous.copy(last);
        last.take(lx);
    }

    /** Whether the item names its column itself ({@code expr AS name}, {@code expr name}). */
    boolean hasAlias(byte[] text, ClientCharset charset) {
        if (aliasKeyword) {
            return true;
        }
        boolean lastIsName = last.type == TokenType.QUOTED_NAME || last.type == TokenType.STRING
                || (last.type == TokenType.WORD && !VALUE_WORDS.contains(last.upper(text, charset)));
        return lastIsName && previous.endsExpression(text, charset);
    }

    /** The little of a token that alias detection needs. */
    private static final class Token {
        TokenType type = TokenType.END;
        int punct;
        int start;
        int end;
        int rawEnd;

        void take(Lexer lx) {
            type = lx.type;
            punct = lx.punct;
            start = lx.start;
            end = lx.end;
            byte[] text = lx.bytes();
            boolean closingQuote = end < text.length && (text[end] == '\'' || text[end] == '"' || text[end] == '`');
            boolean quoted = type == TokenType.STRING || type == TokenType.QUOTED_NAME
                    || type == TokenType.USER_VARIABLE || type == TokenType.SYSTEM_VARIABLE;
            rawEnd = quoted && closingQuote ? end + 1 : end;
        }

        void copy(Token other) {
            type = other.type;
            punct = other.punct;
            start = other.start;
            end = other.end;
            rawEnd = other.rawEnd;
        }

        String upper(byte[] text, ClientCharset charset) {
            return charset.decode(text, start, end).toUpperCase(Locale.ROOT);
        }

        boolean endsExpression(byte[] text, ClientCharset charset) {
            return switch (type) {
                case PUNCT -> punct == ')';
                case NUMBER, STRING, QUOTED_NAME, USER_VARIABLE, SYSTEM_VARIABLE -> true;
                case WORD -> !OPERATOR_WORDS.contains(upper(text, charset));
                default -> false;
            };
        }
    }
}
