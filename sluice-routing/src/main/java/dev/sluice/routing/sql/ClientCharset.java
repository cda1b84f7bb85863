package dev.sluice.routing.sql;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The character set a client writes its statements in ({@code character_set_client}): what the
 * handshake's collation names, then what {@code SET NAMES}, {@code SET CHARACTER SET} and
 * {@code SET character_set_client} choose. Sluice reads identifiers (schemas, temporary tables,
 * user variables) in it, as the server does, and a statement sent again (a replay) must reach the
 * server in it too.
 *
 * @param name the server's name for it, lower case ({@code utf8mb4}, {@code koi8r}, …)
 * @param java how Java decodes and encodes it; UTF-8 for a character set Java does not know
 */
public record ClientCharset(String name, Charset java) {
    /** What a connection uses when nothing else is known: the server's own default. */
    public static final ClientCharset UTF8MB4 = new ClientCharset("utf8mb4", StandardCharsets.UTF_8);

    private static final String COLLATIONS = "collations.tsv";
    private static final Map<Integer, String> CHARSET_BY_COLLATION_ID = new HashMap<>();
    private static final Map<String, String> CHARSET_BY_COLLATION_NAME = new HashMap<>();
    private static final Set<String> KNOWN = new HashSet<>();
    /** The server's character set names and Java's, where they differ or exist at all. */
    private static final Map<String, String> JAVA_NAMES = Map.ofEntries(
            Map.entry("utf8mb4", "UTF-8"), Map.entry("utf8mb3", "UTF-8"), Map.entry("utf8", "UTF-8"),
            Map.entry("latin1", "windows-1252"), Map.entry("latin2", "ISO-8859-2"), Map.entry("latin5", "ISO-8859-9"),
            Map.entry("latin7", "ISO-8859-13"), Map.entry("greek", "ISO-8859-7"), Map.entry("hebrew", "ISO-8859-8"),
            Map.entry("koi8r", "KOI8-R"), Map.entry("koi8u", "KOI8-U"), Map.entry("cp1250", "windows-1250"),
            Map.entry("cp1251", "windows-1251"), Map.entry("cp1256", "windows-1256"),
            Map.entry("cp1257", "windows-1257"), Map.entry("cp850", "IBM850"), Map.entry("cp852", "IBM852"),
            Map.entry("cp866", "IBM866"), Map.entry("ascii", "US-ASCII"), Map.entry("binary", "ISO-8859-1"),
            Map.entry("big5", "Big5"), Map.entry("gbk", "GBK"), Map.entry("gb2312", "GB2312"),
            Map.entry("gb18030", "GB18030"), Map.entry("sjis", "Shift_JIS"), Map.entry("cp932", "windows-31j"),
            Map.entry("ujis", "EUC-JP"), Map.entry("eucjpms", "EUC-JP"), Map.entry("euckr", "EUC-KR"),
            Map.entry("tis620", "TIS-620"), Map.entry("macroman", "x-MacRoman"), Map.entry("macce", "x-MacCentralEurope"));

    static {
        try (InputStream in = ClientCharset.class.getResourceAsStream(COLLATIONS)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + COLLATIONS);
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] fields = line.split("\t");
                CHARSET_BY_COLLATION_ID.put(Integer.parseInt(fields[0]), fields[2]);
                CHARSET_BY_COLLATION_NAME.put(fields[1], fields[2]);
                KNOWN.add(fields[2]);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The character set of handshake collation {@code id}; utf8mb4 for an id this table does not know. */
    public static ClientCharset ofCollation(int id) {
        String name = CHARSET_BY_COLLATION_ID.get(id);
        return name == null ? UTF8MB4 : named(name).orElse(UTF8MB4);
    }

    /** The character set of a collation named in SQL ({@code koi8r_general_ci}). */
    public static Optional<ClientCharset> ofCollationName(String collation) {
        String name = CHARSET_BY_COLLATION_NAME.get(collation.toLowerCase(Locale.ROOT));
        return name == null ? Optional.empty() : named(name);
    }

    /**
     * The character set the server knows by {@code name}, any case; empty for a name the server
     * does not know as a client character set. Known to the server but not to Java (a rare
     * legacy set), it is read as UTF-8: ASCII names still read right.
     */
    public static Optional<ClientCharset> named(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        if (lower.equals("utf8")) {
            lower = "utf8mb3";
        }
        if (!KNOWN.contains(lower)) {
            return Optional.empty();
        }
        String javaName = JAVA_NAMES.get(lower);
        Charset java = StandardCharsets.UTF_8;
        if (javaName != null && Charset.isSupported(javaName)) {
            java = Charset.forName(javaName);
        }
        return Optional.of(new ClientCharset(lower, java));
    }

    /** Text of {@code bytes[from, to)} as the server reads it. */
    public String decode(byte[] bytes, int from, int to) {
        return new String(bytes, from, to - from, java);
    }

    /** Bytes of {@code text} as a client in this character set writes it. */
    public byte[] encode(String text) {
        return text.getBytes(java);
    }
}
