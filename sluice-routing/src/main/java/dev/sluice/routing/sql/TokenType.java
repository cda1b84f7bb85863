package dev.sluice.routing.sql;

/** Token classes of the routing lexer: just enough of MySQL's lexical grammar to route safely. */
enum TokenType {
    /** Unquoted identifier or keyword. */
    WORD,
    /** {@code `name`}. */
    QUOTED_NAME,
    /** {@code 'text'} or {@code "text"}. */
    STRING,
    NUMBER,
    /** {@code @name}, {@code @'name'}, {@code @`name`}. */
    USER_VARIABLE,
    /** {@code @@name}, {@code @@session.name}, … */
    SYSTEM_VARIABLE,
    /** {@code :=}. */
    ASSIGN,
    /** Any other single byte: {@code ( ) , ; . =} and operators. */
    PUNCT,
    /** End of the text (or of a malformed part, after which nothing is trusted). */
    END
}
