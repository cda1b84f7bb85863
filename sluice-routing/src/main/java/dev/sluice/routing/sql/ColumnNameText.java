package dev.sluice.routing.sql;

import java.io.ByteArrayOutputStream;

/**
 * The name the server gives a select item that has no alias: the item's text as written, with
 * its comments left out (the markers of an executable comment too, its body kept) and without
 * the blanks around it.
 */
final class ColumnNameText {

    private static final int MAX_VERSION_DIGITS = 6;

    private ColumnNameText() {
    }

    static String of(byte[] text, int from, int to, ClientCharset charset) {
        ByteArrayOutputStream kept = new ByteArrayOutputStream(to - from);
        boolean inExecutableComment = false;
        int pos = from;
        while (pos < to) {
            int b = text[pos];
            if (b == '\'' || b == '"' || b == '`') {
                int end = quotedEnd(text, pos, to);
                kept.write(text, pos, end - pos);
                pos = end;
            } else if (b == '#' || (b == '-' && pos + 1 < to && text[pos + 1] == '-'
                    && (pos + 2 >= to || (text[pos + 2] & 0xFF) <= ' '))) {
                while (pos < to && text[pos] != '\n') {
                    pos++;
                }
            } else if (b == '/' && pos + 1 < to && text[pos + 1] == '*') {
                int body = pos + 2;
                boolean mariaDbOnly = body + 1 < to && (text[body] == 'M' || text[body] == 'm') && text[body + 1] == '!';
                if (!inExecutableComment && (mariaDbOnly || (body < to && text[body] == '!'))) {
                    pos = body + (mariaDbOnly ? 2 : 1);
                    for (int digits = 0; digits < MAX_VERSION_DIGITS && pos < to && Lexer.isDigit(text[pos]); digits++) {
                        pos++;
                    }
                    inExecutableComment = true;
                } else {
                    pos = commentEnd(text, body, to);
                }
            } else if (b == '*' && inExecutableComment && pos + 1 < to && text[pos + 1] == '/') {
                inExecutableComment = false;
                pos += 2;
            } else {
                kept.write(b);
                pos++;
            }
        }
        byte[] bytes = kept.toByteArray();
        return charset.decode(bytes, 0, bytes.length).strip();
    }

    private static int quotedEnd(byte[] text, int open, int to) {
        int quote = text[open];
        int pos = open + 1;
        while (pos < to) {
            int b = text[pos];
            if (b == '\\' && quote != '`') {
                pos += 2;
            } else if (b == quote) {
                if (pos + 1 < to && text[pos + 1] == quote) {
                    pos += 2;
                } else {
                    return pos + 1;
                }
            } else {
                pos++;
            }
        }
        return to;
    }

    private static int commentEnd(byte[] text, int body, int to) {
        for (int i = body; i + 1 < to; i++) {
            if (text[i] == '*' && text[i + 1] == '/') {
                return i + 2;
            }
        }
        return to;
    }
}
