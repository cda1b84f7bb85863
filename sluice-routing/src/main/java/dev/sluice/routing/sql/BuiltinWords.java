package dev.sluice.routing.sql;

/**
 * The word lists shipped as resources, loaded once when the classifier is first used:
 * built-in function names, the reserved words that may precede a parenthesis, and the system
 * variables that name the server rather than the session.
 */
final class BuiltinWords {

    private static final WordTable FUNCTIONS = WordTable.loadSet("builtin-functions.txt");
    private static final WordTable NON_CALL_WORDS = WordTable.loadSet("non-call-words.txt");
    private static final WordTable NODE_IDENTITY = WordTable.loadSet("node-identity-variables.txt");

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

    /** Whether the current system variable of {@code lx} names the server itself ({@code @@server_id}, …). */
    static boolean isNodeIdentityVariable(Lexer lx) {
        return lx.type == TokenType.SYSTEM_VARIABLE && NODE_IDENTITY.contains(lx.bytes(), lx.start, lx.end, lx.hash);
    }

    /** Number of built-in function names known (for tests). */
    static int functionCount() {
        return FUNCTIONS.size();
    }
}
