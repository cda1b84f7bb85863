package dev.sluice.routing.sql;

import java.io.ByteArrayOutputStream;

/**
 * The name the server gives a select item that has no alias: the item's text as written, from
 * its first token to its last, ordinary comments inside it included, but without the markers of
 * an executable comment ({@code /*!50700}, {@code /*M!}, the closing star-slash), whose body the
 * server reads as SQL.
 */
final class ColumnNameText {

    private static final int MAX_VERSION_DIGITS = 6;

    private final byte[] text;
    private final int to;
    private final ByteArrayOutputStream kept;
    private int pos;
    private boolean inExecutableComment;

    private ColumnNameText(byte[] text, int from, int to) {
        this.text = text;
        this.to = to;
        this.pos = from;
        this.kept = new ByteArrayOutputStream(to - from);
    }

    /** The name of the item whose text runs from {@code from} (blanks and comments ahead included) to {@code to}. */
    static String of(byte[] text, int from, int to, ClientCharset charset) {
        ColumnNameText name = new ColumnNameText(text, from, to);
        name.skipLeadingBlanksAndComments();
        name.copyRest();
        byte[] bytes = name.kept.toByteArray();
        return charset.decode(bytes, 0, bytes.length).strip();
    }

    private void skipLeadingBlanksAndComments() {
        while (pos < to) {
            int b = text[pos];
            if (b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == 0x0B) {
                pos++;
            } else if (startsLineComment()) {
                pos = lineEnd();
            } else if (startsExecutableComment() || closesExecutableComment()) {
                skipMarker();
            } else if (startsComment()) {
                pos = commentEnd();
            } else {
                return;
            }
        }
    }

    private void copyRest() {
        while (pos < to) {
            int b = text[pos];
            int from = pos;
            if (b == '\'' || b == '"' || b == '`') {
                pos = quotedEnd();
            } else if (startsLineComment()) {
                pos = lineEnd();
            } else if (startsExecutableComment() || closesExecutableComment()) {
                skipMarker();
                continue;
            } else if (startsComment()) {
                pos = commentEnd();
            } else {
                pos++;
            }
            kept.write(text, from, pos - from);
        }
    }

    private boolean startsLineComment() {
        int b = text[pos];
        return b == '#' || (b == '-' && pos + 1 < to && text[pos + 1] == '-'
                && (pos + 2 >= to || (text[pos + 2] & 0xFF) <= ' '));
    }

    private boolean startsComment() {
        return text[pos] == '/' && pos + 1 < to && text[pos + 1] == '*';
    }

    private boolean startsExecutableComment() {
        if (inExecutableComment || !startsComment()) {
            return false;
        }
        int body = pos + 2;
        return (body < to && text[body] == '!')
                || (body + 1 < to && (text[body] == 'M' || text[body] == 'm') && text[body + 1] == '!');
    }

    private boolean closesExecutableComment() {
        return inExecutableComment && text[pos] == '*' && pos + 1 < to && text[pos + 1] == '/';
    }

    /** Past an executable comment's opening marker (with its version) or its closing one. */
    private void skipMarker() {
        if (inExecutableComment) {
            inExecutableComment = false;
            pos += 2;
            return;
        }
        pos += text[pos + 2] == '!' ? 3 : 4;
        for (int digits = 0; digits < MAX_VERSION_DIGITS && pos < to && Lexer.isDigit(text[pos]); digits++) {
            pos++;
        }
        inExecutableComment = true;
    }

    private int lineEnd() {
        int p = pos;
        while (p < to && text[p] != '\n') {
            p++;
        }
        return p;
    }

    private int commentEnd() {
        for (int i = pos + 2; i + 1 < to; i++) {
            if (text[i] == '*' && text[i + 1] == '/') {
                return i + 2;
            }
        }
        return to;
    }

    private int quotedEnd() {
        int quote = text[pos];
        int p = pos + 1;
        while (p < to) {
            int b = text[p];
            if (b == '\\' && quote != '`') {
                p += 2;
            } else if (b == quote) {
                if (p + 1 < to && text[p + 1] == quote) {
                    p += 2;
                } else {
                    return p + 1;
                }
            } else {
                p++;
            }
        }
        return to;
    }
}
