package dev.sluice.server.auth;

import java.util.List;
import java.util.Locale;

/**
 * Which statements change what a login is checked against — accounts, passwords, TLS
 * requirements: {@code CREATE / ALTER / DROP / RENAME USER}, {@code SET PASSWORD}, {@code GRANT},
 * {@code REVOKE}. Sluice runs them on the primary like any DDL; once one has run through it, the
 * accounts it holds are known to be stale ({@link AccountStore#changed()}). Pure; reads only the
 * start of the text, after comments.
 */
public final class AccountStatements {
    /** Enough text for the leading comments of a hint and the statement's first words. */
    public static final int PREFIX_CHARS = 512;
    private static final List<String> STARTS = List.of("create user", "create or replace user", "alter user",
            "drop user", "rename user", "set password", "grant", "revoke");

    private AccountStatements() {
    }

    /** Whether the statement whose text starts with {@code sql} changes accounts. */
    public static boolean changesAccounts(String sql) {
        String words = normalizedStart(sql);
        return STARTS.stream().anyMatch(s -> words.startsWith(s) && (words.length() == s.length()
                || !Character.isLetterOrDigit(words.charAt(s.length())) && words.charAt(s.length()) != '_'));
    }

    /** The text after leading blanks and comments, lower-cased, with runs of blanks made one space. */
    private static String normalizedStart(String sql) {
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (sql.startsWith("/*", i)) {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (sql.startsWith("#", i) || sql.startsWith("-- ", i)) {
                int end = sql.indexOf('\n', i);
                i = end < 0 ? n : end + 1;
            } else {
                break;
            }
        }
        return sql.substring(i).replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
    }
}
