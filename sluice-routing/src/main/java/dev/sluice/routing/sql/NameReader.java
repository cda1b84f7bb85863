package dev.sluice.routing.sql;

import java.util.Optional;

/**
 * Turns the current token of a {@link Lexer} into names the session must keep: table names of
 * CREATE TEMPORARY / DROP TABLE and the database of USE. Only these statements pay for Strings.
 */
final class NameReader {

    private NameReader() {
    }

    static boolean isName(Lexer lx) {
        return lx.type == TokenType.WORD || lx.type == TokenType.QUOTED_NAME || lx.type == TokenType.STRING;
    }

    /** The current token's text, unquoted (doubled quotes collapsed), as written. */
    static String text(Lexer lx) {
        String raw = lx.charset.decode(lx.bytes(), lx.start, lx.end);
        if (lx.type == TokenType.QUOTED_NAME) {
            return raw.replace("``", "`");
        }
        return raw;
    }

    /**
     * Reads {@code name} or {@code schema.name} starting at the current token, leaving the lexer on
     * the last token of the name. Empty when the current token is not a name.
     */
    static Optional<TableName> tableName(Lexer lx) {
        if (!isName(lx)) {
            return Optional.empty();
        }
        String first = text(lx);
        if (lx.peekPunct('.')) {
            lx.advance();
            if (lx.peekType() == TokenType.WORD || lx.peekType() == TokenType.QUOTED_NAME) {
                lx.advance();
                return Optional.of(TableName.of(first, text(lx)));
            }
        }
        return Optional.of(TableName.of(first));
    }
}
