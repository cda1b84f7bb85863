package dev.sluice.server.auth;

import dev.sluice.protocol.auth.NativePassword;
import dev.sluice.server.backend.QueryResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The accounts clients may log in as, loaded from the primary's account table (what MaxScale
 * does): Sluice verifies a client's password answer itself and never stores a password. A login
 * that names an unknown user or fails its check is checked again after a fresh read
 * ({@link #refreshed()}): an account created or changed a moment ago must work, and a dropped or
 * changed one must stop working. Reads are shared and start at most once per
 * {@code minReloadInterval} ({@link AccountReloads}), so a stream of bad logins cannot turn into a
 * stream of queries on the primary.
 */
public final class AccountStore {
    private static final Logger LOG = LoggerFactory.getLogger(AccountStore.class);
    /** Accounts of MariaDB 10.4+ and MySQL 5.7+; roles are not accounts. {@code ssl_type}: REQUIRE SSL and the like. */
    public static final String ACCOUNTS_QUERY =
            "SELECT user, host, authentication_string, plugin, ssl_type FROM mysql.user";
    private static final String NATIVE = "mysql_native_password";

    private final Supplier<CompletableFuture<QueryResult>> loader;
    private final Map<String, byte[]> configuredPasswords;
    private final AccountReloads reloads;
    private volatile Map<String, List<Account>> accounts = Map.of();
    /** Account changes Sluice saw run, counted; a read installs the count it started at. */
    private final AtomicLong changes = new AtomicLong();
    private volatile long changesRead;

    /**
     * @param loader runs {@link #ACCOUNTS_QUERY} on the primary
     * @param configuredPasswords plain passwords from the configuration's {@code users:} list
     */
    public AccountStore(Supplier<CompletableFuture<QueryResult>> loader, Map<String, byte[]> configuredPasswords,
            Duration minReloadInterval, LongSupplier nanoClock) {
        this(loader, configuredPasswords, minReloadInterval, nanoClock, AccountReloads.COMMON_POOL);
    }

    AccountStore(Supplier<CompletableFuture<QueryResult>> loader, Map<String, byte[]> configuredPasswords,
            Duration minReloadInterval, LongSupplier nanoClock, AccountReloads.Timer timer) {
        this.loader = loader;
        this.configuredPasswords = Map.copyOf(configuredPasswords);
        this.reloads = new AccountReloads(this::read, minReloadInterval, nanoClock, timer);
    }

    public Optional<byte[]> configuredPassword(String user) {
        return Optional.ofNullable(configuredPasswords.get(user)).map(byte[]::clone);
    }

    /** The most specific account of {@code user} that admits {@code clientHost}. */
    public Optional<Account> find(String user, String clientHost) {
        return accounts.getOrDefault(user, List.of()).stream()
                .filter(a -> a.admits(clientHost))
                .max(Comparator.comparingInt(Account::specificity));
    }

    public int size() {
        return accounts.values().stream().mapToInt(List::size).sum();
    }

    /** Loads now (at start). */
    public CompletableFuture<Void> load() {
        return reloads.initial();
    }

    /**
     * Completes once the accounts have been read again, by a read that started after this call
     * (shared with every other caller; at most one per minimum interval).
     */
    public CompletableFuture<Void> refreshed() {
        return reloads.fresh();
    }

    /** A statement that changes accounts has run through Sluice: what is held is stale. */
    public void changed() {
        changes.incrementAndGet();
    }

    /**
     * Whether an account change ran through Sluice after the accounts held were read: a login they
     * accept must then be checked again after {@link #refreshed()}.
     */
    public boolean stale() {
        return changesRead < changes.get();
    }

    private CompletableFuture<Void> read() {
        long seen = changes.get();
        return loader.get().thenAccept(result -> {
            if (install(result)) {
                changesRead = Math.max(changesRead, seen);
            }
        }).exceptionally(e -> {
            LOG.warn("could not load accounts from the primary: {}", e.getMessage());
            return null;
        });
    }

    /** Installs what a read found; false when the read failed and the old accounts stay. */
    private boolean install(QueryResult result) {
        if (result.isError()) {
            LOG.warn("could not load accounts from the primary: {}", result.error().get().message());
            return false;
        }
        Map<String, List<Account>> byUser = new HashMap<>();
        for (List<String> row : result.rows()) {
            String user = result.value(row, "User") != null ? result.value(row, "User") : result.value(row, "user");
            String host = result.value(row, "Host") != null ? result.value(row, "Host") : result.value(row, "host");
            String auth = Optional.ofNullable(result.value(row, "authentication_string")).orElse("");
            String plugin = Optional.ofNullable(result.value(row, "plugin")).filter(p -> !p.isEmpty()).orElse(NATIVE);
            if (user == null || host == null) {
                continue;
            }
            Optional<byte[]> stage2 = Optional.empty();
            if (NATIVE.equals(plugin)) {
                stage2 = parseNative(auth);
            }
            boolean requiresTls = Account.requiresTls(result.value(row, "ssl_type"));
            byUser.computeIfAbsent(user, u -> new ArrayList<>())
                    .add(new Account(user, host, plugin, stage2, requiresTls));
        }
        accounts = byUser;
        LOG.info("loaded {} accounts from the primary", byUser.values().stream().mapToInt(List::size).sum());
        return true;
    }

    private static Optional<byte[]> parseNative(String authenticationString) {
        try {
            return Optional.of(NativePassword.parseStage2(authenticationString));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** For tests and the users: list: a native account from a plain password. */
    public static byte[] stage2Of(String password) {
        return NativePassword.stage2(password.getBytes(StandardCharsets.UTF_8));
    }
}
