package dev.sluice.routing.sql;

/**
 * Recognises {@code SELECT sluice_last_gtid() [[AS] alias] [;]} token by token: only
 * that exact shape is Sluice's to answer; the function anywhere else is left to the primary,
 * whose "does not exist" error is then the honest answer.
 */
final class LastGtidShape {

    private static final int MISMATCH = -1;
    private static final int START = 0;
    private static final int SELECTED = 1;
    private static final int NAMED = 2;
    private static final int OPENED = 3;
    private static final int CALLED = 4;
    private static final int AS = 5;
    private static final int ALIASED = 6;

    private int state;
    private String alias;

    void reset() {
        state = START;
        alias = null;
    }

    /** The column name the answer carries: the alias, or the call as written. */
    String column() {
        return alias != null ? alias : "sluice_last_gtid()";
    }

    /** Takes the lexer's current token into account. */
    void follow(Lexer lx) {
        if (state == MISMATCH) {
            return;
        }
        TokenType t = lx.type;
        boolean word = t == TokenType.WORD;
        boolean name = word || t == TokenType.QUOTED_NAME || t == TokenType.STRING;
        int before = state;
        state = switch (state) {
            case START -> word && lx.keyword == Keyword.SELECT ? SELECTED : MISMATCH;
            case SELECTED -> word && lx.keyword == Keyword.SLUICE_LAST_GTID ? NAMED : MISMATCH;
            case NAMED -> lx.isPunct('(') ? OPENED : MISMATCH;
            case OPENED -> lx.isPunct(')') ? CALLED : MISMATCH;
            case CALLED -> lx.isPunct(';') ? CALLED : word && lx.keyword == Keyword.AS ? AS : name ? ALIASED : MISMATCH;
            case AS -> name ? ALIASED : MISMATCH;
            case ALIASED -> lx.isPunct(';') ? ALIASED : MISMATCH;
            default -> MISMATCH;
        };
        if (state == ALIASED && before != ALIASED) {
            alias = NameReader.text(lx);
        }
    }

    /** The tokens so far form the whole shape. */
    boolean complete() {
        return state == CALLED || state == ALIASED;
    }
}
