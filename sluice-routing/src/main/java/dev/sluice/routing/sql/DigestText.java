package dev.sluice.routing.sql;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The text of a {@link StatementDigest} as it is written, token by token, into a buffer reused for
 * every statement: where spaces go (one between tokens, none after {@code (} or {@code .}, none
 * before {@code )}, {@code ,}, {@code .} or {@code ;}, none before the parenthesis of a call), the
 * cut at {@link StatementDigest#MAX_TEXT_BYTES} and the hash.
 */
final class DigestText {

    /** What was last written, which decides the space before the next token. */
    enum Last { NOTHING, WORD, VALUE, OPEN, CLOSE, COMMA, DOT, OPERATOR, SEMICOLON, ELLIPSIS }

    static final byte[] ELLIPSIS = {'.', '.', '.'};
    private static final int MAX = StatementDigest.MAX_TEXT_BYTES;
    private static final long HASH_SEED = 0xcbf29ce484222325L;
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** After these words a parenthesis opens a list or a subquery, not a call: a space goes between. */
    private static final boolean[] CLAUSE = clauseWords(Keyword.IN, Keyword.VALUES, Keyword.VALUE, Keyword.AS,
            Keyword.FROM, Keyword.JOIN, Keyword.STRAIGHT_JOIN, Keyword.WHERE, Keyword.AND, Keyword.OR, Keyword.NOT,
            Keyword.ON, Keyword.USING, Keyword.EXISTS, Keyword.SELECT, Keyword.UNION, Keyword.EXCEPT,
            Keyword.INTERSECT, Keyword.HAVING, Keyword.LATERAL, Keyword.ALL, Keyword.WITH, Keyword.RECURSIVE,
            Keyword.LIMIT, Keyword.SET, Keyword.INTO, Keyword.TABLE);

    private final byte[] text = new byte[MAX];
    /** Bytes written, counting those past the cut that were not stored. */
    private int length;
    private Last last = Last.NOTHING;
    /** The keyword of the last word written, when {@link #last} is {@link Last#WORD}. */
    private Keyword lastKeyword = Keyword.NONE;

    void reset() {
        length = 0;
        last = Last.NOTHING;
        lastKeyword = Keyword.NONE;
    }

    Last last() {
        return last;
    }

    /** Whether the last thing written is the word {@code keyword}. */
    boolean lastWordIs(Keyword keyword) {
        return last == Last.WORD && lastKeyword == keyword;
    }

    /** Whether the last thing written is a word after which a parenthesis opens a list or a subquery. */
    boolean lastWordIsClause() {
        return last == Last.WORD && CLAUSE[lastKeyword.ordinal()];
    }

    /** Bytes written so far (past the cut included): a position to {@link #rewind} to. */
    int position() {
        return length;
    }

    /** Drops what was written since {@code position}, which followed an opening parenthesis. */
    void rewind(int position) {
        length = position;
        last = Last.OPEN;
    }

    void write(Last kind, int b) {
        space(kind);
        put((byte) b);
        last = kind;
    }

    void write(Last kind, byte[] bytes) {
        write(kind, bytes, 0, bytes.length);
    }

    void write(Last kind, byte[] bytes, int from, int to) {
        space(kind);
        int n = to - from;
        if (length + n <= MAX) {
            System.arraycopy(bytes, from, text, length, n);
            length += n;
        } else {
            for (int i = from; i < to; i++) {
                put(bytes[i]);
            }
        }
        last = kind;
    }

    void writeWord(byte[] bytes, int from, int to, Keyword keyword) {
        write(Last.WORD, bytes, from, to);
        lastKeyword = keyword;
    }

    /** One more byte of the operator just written ({@code <=}, {@code <>}, {@code ||} …), no space. */
    void extendOperator(int b) {
        put((byte) b);
    }

    private void space(Last next) {
        boolean none = switch (last) {
            case NOTHING, OPEN, DOT -> true;
            default -> false;
        };
        if (none || next == Last.CLOSE || next == Last.COMMA || next == Last.DOT || next == Last.SEMICOLON) {
            return;
        }
        if (next == Last.OPEN && (last == Last.VALUE || (last == Last.WORD && !CLAUSE[lastKeyword.ordinal()]))) {
            return;
        }
        put((byte) ' ');
    }

    private void put(byte b) {
        if (length < MAX) {
            text[length] = b;
        }
        length++;
    }

    /** Cuts a text too long (it then ends with {@code ...}) and returns the hash of the text and {@code hints}. */
    long finish(int hints) {
        if (length > MAX) {
            length = MAX;
            System.arraycopy(ELLIPSIS, 0, text, MAX - ELLIPSIS.length, ELLIPSIS.length);
        }
        // Eight bytes a step: a byte-at-a-time hash is a chain of dependent multiplies as long as the text.
        long h = HASH_SEED ^ length;
        int i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES) {
            h = mix(h ^ (long) LONGS.get(text, i));
        }
        long tail = 0;
        for (int j = length - 1; j >= i; j--) {
            tail = (tail << Byte.SIZE) | (text[j] & 0xFF);
        }
        return mix(mix(h ^ tail) ^ hints);
    }

    /** The length of the finished text. */
    int length() {
        return length;
    }

    boolean equalsBytes(byte[] other) {
        return Arrays.equals(text, 0, length, other, 0, other.length);
    }

    byte[] copy() {
        return Arrays.copyOf(text, length);
    }

    String decode(ClientCharset charset) {
        return charset.decode(text, 0, length);
    }

    private static long mix(long h) {
        long m = h * GOLDEN;
        return m ^ (m >>> (Long.SIZE / 2));
    }

    private static boolean[] clauseWords(Keyword... words) {
        boolean[] clause = new boolean[Keyword.values().length];
        for (Keyword k : words) {
            clause[k.ordinal()] = true;
        }
        return clause;
    }
}
