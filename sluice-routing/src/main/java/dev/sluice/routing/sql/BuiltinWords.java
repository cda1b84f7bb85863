package dev.sluice.routing.sql;

/**
 * The word lists shipped as resources, loaded once when the classifier is first used:
 * built-in function names and the reserved words that may precede a parenthesis.
 */
final class BuiltinWords {

    private static final WordTable FUNCTIONS = WordTable.loadSet("builtin-functions.txt");
    private static final WordTable NON_CALL_WORDS = WordTable.loadSet("non-call-words.txt");

    private BuiltinWords() {
    }

    /** Whether the current word of {@code lx} is a MariaDB or MySQL built-in function. */
    static boolean isBuiltinFunction(Lexer lx) {
        return lx.type == TokenType.WORD && FUNCTIONS.contains(lx.bytes(), lx.start, lx.end, lx.hash);
    }

    /** Whether the current word of {@code lx} may stand before "(" without being a call. */
    static boolean isNonCallWord(Lexer lx) {
        return lx.type == TokenType.WORD && NON_CALL_WORDS.contains(lx.bytes(), lx.start, lx.end, lx.hash);
    }

    /** Number of built-in function names known (for tests). */
    static int functionCount() {
        return FUNCTIONS.size();
    }
}
