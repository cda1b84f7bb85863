package dev.sluice.routing.sql;

/**
 * Tokens over the UTF-8 bytes of a COM_QUERY payload, with one token of lookahead, no copies and
 * no allocation per token.
 *
 * <p>It skips whitespace, {@code #} and {@code -- } comments and ordinary slash-star
 * comments, and treats executable comments ({@code /*!}, {@code /*!50700}, {@code /*M!100101})
 * as SQL, because the server runs them. An unterminated string, quoted name or comment ends the
 * token stream and sets {@link #malformed}: the server will reject the text, and until it does
 * nothing in it can be trusted to be harmless. Every loop advances, so the cost is linear in the
 * input whatever the bytes are.
 */
final class Lexer {

    private static final int MAX_VERSION_DIGITS = 6;

    private byte[] buf;
    private int limit;
    private int pos;
    private boolean inExecutableComment;
    /** An unterminated string, quoted name or comment was met. */
    boolean malformed;

    // current token
    TokenType type = TokenType.END;
    int start;
    int end;
    /** The token as written, quotes and {@code @} included (for the digest text, BEHAVIOUR §12). */
    int rawStart;
    int rawEnd;
    long hash;
    int punct;
    boolean spaceBefore;
    Keyword keyword = Keyword.NONE;
    /** For {@link TokenType#SYSTEM_VARIABLE}: GLOBAL, SESSION, LOCAL, PERSIST, PERSIST_ONLY or NONE. */
    Keyword scope = Keyword.NONE;

    // lookahead token
    private TokenType nType;
    private int nStart;
    private int nEnd;
    private int nRawStart;
    private int nRawEnd;
    /** The character set the text is written in: names are read in it. */
    ClientCharset charset = ClientCharset.UTF8MB4;
    private long nHash;
    private int nPunct;
    private boolean nSpace;
    private Keyword nKeyword;
    private Keyword nScope;

    /**
     * Starts on {@code buf[from, to)}, forgetting everything about a previous text: one lexer
     * serves every statement of its thread, so a classification allocates nothing but its result.
     */
    void reset(byte[] text, int from, int to, ClientCharset textCharset) {
        buf = text;
        charset = textCharset;
        pos = from;
        limit = to;
        inExecutableComment = false;
        malformed = false;
        type = TokenType.END;
        start = from;
        end = from;
        rawStart = from;
        rawEnd = from;
        hash = 0;
        punct = 0;
        spaceBefore = false;
        keyword = Keyword.NONE;
        scope = Keyword.NONE;
        lexNext();
    }

    /** Drops the reference to the last text, so a reused lexer does not keep a 16 MB payload alive. */
    void release() {
        buf = null;
    }

    /** Moves to the next token. */
    void advance() {
        type = nType;
        start = nStart;
        end = nEnd;
        rawStart = nRawStart;
        rawEnd = nRawEnd;
        hash = nHash;
        punct = nPunct;
        spaceBefore = nSpace;
        keyword = nKeyword;
        scope = nScope;
        lexNext();
    }

    TokenType peekType() {
        return nType;
    }

    Keyword peekKeyword() {
        return nKeyword;
    }

    boolean peekPunct(int c) {
        return nType == TokenType.PUNCT && nPunct == c;
    }

    boolean isPunct(int c) {
        return type == TokenType.PUNCT && punct == c;
    }

    /** Start of the lookahead token as written (its opening quote, its {@code @}). */
    int peekRawStart() {
        return nRawStart;
    }

    /** Start of the lookahead token (end of input when there is none). */
    int peekStart() {
        return nStart;
    }

    byte[] bytes() {
        return buf;
    }

    private void lexNext() {
        nSpace = skipSpaceAndComments();
        nRawStart = pos;
        lexToken();
        nRawEnd = pos;
    }

    private void lexToken() {
        nKeyword = Keyword.NONE;
        nScope = Keyword.NONE;
        nPunct = 0;
        nHash = 0;
        if (pos >= limit) {
            nType = TokenType.END;
            nStart = limit;
            nEnd = limit;
            return;
        }
        int b = buf[pos];
        if (isWordStart(b)) {
            lexWord();
        } else if (isDigit(b) || (b == '.' && pos + 1 < limit && isDigit(buf[pos + 1]))) {
            nType = TokenType.NUMBER;
            nStart = pos;
            while (pos < limit && (isWordByte(buf[pos]) || buf[pos] == '.')) {
                pos++;
            }
            nEnd = pos;
        } else if (b == '\'' || b == '"') {
            nType = TokenType.STRING;
            lexQuoted(b);
        } else if (b == '`') {
            nType = TokenType.QUOTED_NAME;
            lexQuoted(b);
        } else if (b == '@') {
            lexVariable();
        } else if (b == ':' && pos + 1 < limit && buf[pos + 1] == '=') {
            nType = TokenType.ASSIGN;
            nStart = pos;
            pos += 2;
            nEnd = pos;
        } else {
            nType = TokenType.PUNCT;
            nPunct = b & 0xFF;
            nStart = pos;
            pos++;
            nEnd = pos;
        }
    }

    private void lexWord() {
        nType = TokenType.WORD;
        nStart = pos;
        long h = WordHash.SEED;
        while (pos < limit && isWordByte(buf[pos])) {
            h = WordHash.step(h, buf[pos]);
            pos++;
        }
        nEnd = pos;
        nHash = h;
        nKeyword = Keyword.lookup(buf, nStart, nEnd, h);
    }

    /** A quoted string or name starting at {@code pos}; backslash escapes in strings, doubled quotes in both. */
    private void lexQuoted(int quote) {
        pos++;
        nStart = pos;
        long h = WordHash.SEED;
        boolean backslashEscapes = quote != '`';
        while (pos < limit) {
            int b = buf[pos];
            if (b == quote) {
                if (pos + 1 < limit && buf[pos + 1] == quote) {
                    h = WordHash.step(h, b);
                    pos += 2;
                    continue;
                }
                nEnd = pos;
                nHash = h;
                pos++;
                return;
            }
            if (b == '\\' && backslashEscapes) {
                pos = Math.min(pos + 2, limit);
                continue;
            }
            h = WordHash.step(h, b);
            pos++;
        }
        nEnd = limit;
        nHash = h;
        malformed = true;
    }

    /** {@code @name}, {@code @'name'}, {@code @@[scope.]name}; a lone {@code @} is punctuation. */
    private void lexVariable() {
        int at = pos;
        if (pos + 1 < limit && buf[pos + 1] == '@') {
            pos += 2;
            nType = TokenType.SYSTEM_VARIABLE;
            lexVariableName();
            if (pos < limit && buf[pos] == '.') {
                Keyword maybeScope = Keyword.lookup(buf, nStart, nEnd, nHash);
                if (maybeScope == Keyword.GLOBAL || maybeScope == Keyword.SESSION || maybeScope == Keyword.LOCAL
                        || maybeScope == Keyword.PERSIST || maybeScope == Keyword.PERSIST_ONLY) {
                    nScope = maybeScope;
                    pos++;
                    lexVariableName();
                }
            }
            nType = TokenType.SYSTEM_VARIABLE;
            nKeyword = Keyword.lookup(buf, nStart, nEnd, nHash);
            return;
        }
        pos++;
        if (pos < limit && (buf[pos] == '\'' || buf[pos] == '"' || buf[pos] == '`')) {
            lexQuoted(buf[pos]);
            nType = TokenType.USER_VARIABLE;
            return;
        }
        if (pos < limit && isWordByte(buf[pos])) {
            nType = TokenType.USER_VARIABLE;
            nStart = pos;
            long h = WordHash.SEED;
            while (pos < limit && (isWordByte(buf[pos]) || buf[pos] == '.')) {
                h = WordHash.step(h, buf[pos]);
                pos++;
            }
            nEnd = pos;
            nHash = h;
            return;
        }
        nType = TokenType.PUNCT;
        nPunct = '@';
        nStart = at;
        nEnd = pos;
    }

    private void lexVariableName() {
        if (pos < limit && buf[pos] == '`') {
            lexQuoted('`');
            return;
        }
        nStart = pos;
        long h = WordHash.SEED;
        while (pos < limit && isWordByte(buf[pos])) {
            h = WordHash.step(h, buf[pos]);
            pos++;
        }
        nEnd = pos;
        nHash = h;
    }

    /** Skips blanks and comments; returns whether anything was skipped. */
    private boolean skipSpaceAndComments() {
        int from = pos;
        while (pos < limit) {
            int b = buf[pos];
            if (b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == 0x0B) {
                pos++;
            } else if (b == '#') {
                skipToEndOfLine();
            } else if (b == '-' && pos + 1 < limit && buf[pos + 1] == '-'
                    && (pos + 2 >= limit || (buf[pos + 2] & 0xFF) <= ' ')) {
                skipToEndOfLine();
            } else if (b == '/' && pos + 1 < limit && buf[pos + 1] == '*') {
                if (!enterComment()) {
                    return true;
                }
            } else if (b == '*' && inExecutableComment && pos + 1 < limit && buf[pos + 1] == '/') {
                inExecutableComment = false;
                pos += 2;
            } else {
                break;
            }
        }
        return pos != from;
    }

    /**
     * At {@code /*}: enters an executable comment (its body is SQL) or skips an ordinary one.
     * Returns false when an unterminated comment ended the input.
     */
    private boolean enterComment() {
        int body = pos + 2;
        boolean mariaDbOnly = body + 1 < limit && (buf[body] == 'M' || buf[body] == 'm') && buf[body + 1] == '!';
        if (!inExecutableComment && (mariaDbOnly || (body < limit && buf[body] == '!'))) {
            pos = body + (mariaDbOnly ? 2 : 1);
            for (int digits = 0; digits < MAX_VERSION_DIGITS && pos < limit && isDigit(buf[pos]); digits++) {
                pos++;
            }
            inExecutableComment = true;
            return true;
        }
        for (int i = body; i + 1 < limit; i++) {
            if (buf[i] == '*' && buf[i + 1] == '/') {
                pos = i + 2;
                return true;
            }
        }
        pos = limit;
        malformed = true;
        return false;
    }

    private void skipToEndOfLine() {
        while (pos < limit && buf[pos] != '\n') {
            pos++;
        }
    }

    private static final byte WORD_START = 1;
    private static final byte WORD_PART = 2;
    /** Byte classes, indexed by {@code b & 0xFF}: one load instead of a chain of comparisons per byte. */
    private static final byte[] CLASSES = classes();

    private static byte[] classes() {
        byte[] classes = new byte[256];
        for (int b = 0; b < 256; b++) {
            boolean start = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b == '_' || b == '$' || b >= 0x80;
            boolean digit = b >= '0' && b <= '9';
            classes[b] = (byte) ((start ? WORD_START | WORD_PART : 0) | (digit ? WORD_PART : 0));
        }
        return classes;
    }

    static boolean isDigit(int b) {
        return b >= '0' && b <= '9';
    }

    /** Letters, {@code _}, {@code $} and every non-ASCII byte (identifiers may be in any script). */
    static boolean isWordStart(int b) {
        return (CLASSES[b & 0xFF] & WORD_START) != 0;
    }

    static boolean isWordByte(int b) {
        return (CLASSES[b & 0xFF] & WORD_PART) != 0;
    }
}
