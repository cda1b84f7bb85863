package dev.sluice.routing.sql;

import dev.sluice.routing.gtid.GtidPosition;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What the classifier learned about one statement: everything the router and the session need,
 * and nothing that depends on the session (that is the router's business).
 *
 * <p>A final class rather than a record because its flag sets are packed into {@code int} bit
 * masks: one object per statement and no set allocation on the hot path. {@link #properties()}
 * and {@link #lockCauses()} build sets on demand for callers that want them.
 *
 * <p>Temporary tables: the names a statement creates or drops are kept (lower-cased); the tables
 * it merely references are kept only as a 64-bit fingerprint, because a point select should not
 * pay for a String per table name. {@link #mayReference(TableName)} may answer true for a table it
 * does not reference (about 1 in 1000 for a statement naming two tables): that sends a read to the
 * primary, never a temporary-table read to a replica.
 */
public final class Statement {

    private final StatementKind kind;
    private final Hint hint;
    private final Optional<GtidPosition> consistencyToken;
    private final int propertyBits;
    private final int lockCauseBits;
    private final TransactionControl transactionControl;
    private final int transactionOptionBits;
    private final AutocommitChange autocommitChange;
    private final Optional<IsolationChange> isolationChange;
    private final Optional<SessionCommand> sessionCommand;
    private final Optional<String> schemaChange;
    private final List<TableName> temporaryTablesCreated;
    private final List<TableName> tablesDropped;
    private final long referencedTables;
    private final List<String> userVariablesAssigned;
    private final Optional<String> localAnswerColumn;

    Statement(StatementKind kind, Hint hint, Optional<GtidPosition> consistencyToken, int propertyBits,
              int lockCauseBits, TransactionControl transactionControl, int transactionOptionBits,
              AutocommitChange autocommitChange, Optional<IsolationChange> isolationChange,
              Optional<SessionCommand> sessionCommand, Optional<String> schemaChange,
              List<TableName> temporaryTablesCreated, List<TableName> tablesDropped, long referencedTables) {
        this(kind, hint, consistencyToken, propertyBits, lockCauseBits, transactionControl, transactionOptionBits,
                autocommitChange, isolationChange, sessionCommand, schemaChange, temporaryTablesCreated, tablesDropped,
                referencedTables, List.of(), Optional.empty());
    }

    Statement(StatementKind kind, Hint hint, Optional<GtidPosition> consistencyToken, int propertyBits,
              int lockCauseBits, TransactionControl transactionControl, int transactionOptionBits,
              AutocommitChange autocommitChange, Optional<IsolationChange> isolationChange,
              Optional<SessionCommand> sessionCommand, Optional<String> schemaChange,
              List<TableName> temporaryTablesCreated, List<TableName> tablesDropped, long referencedTables,
              List<String> userVariablesAssigned, Optional<String> localAnswerColumn) {
        this.userVariablesAssigned = userVariablesAssigned;
        this.localAnswerColumn = localAnswerColumn;
        this.kind = kind;
        this.hint = hint;
        this.consistencyToken = consistencyToken;
        this.propertyBits = propertyBits;
        this.lockCauseBits = lockCauseBits;
        this.transactionControl = transactionControl;
        this.transactionOptionBits = transactionOptionBits;
        this.autocommitChange = autocommitChange;
        this.isolationChange = isolationChange;
        this.sessionCommand = sessionCommand;
        this.schemaChange = schemaChange;
        this.temporaryTablesCreated = temporaryTablesCreated;
        this.tablesDropped = tablesDropped;
        this.referencedTables = referencedTables;
    }

    public StatementKind kind() {
        return kind;
    }

    /**
     * The name of the one column of a statement Sluice answers itself
     * ({@code SELECT sluice_last_gtid() [AS alias]}): the alias, or the call as written.
     */
    public Optional<String> localAnswerColumn() {
        return localAnswerColumn;
    }

    /**
     * The user variables a {@code SET @v = expr [, @w = expr]} assigns, names as written (without
     * the {@code @}); empty for any other statement.
     */
    public List<String> userVariablesAssigned() {
        return userVariablesAssigned;
    }

    /** The leading FORCE_MASTER / FORCE_SLAVE hint. */
    public Hint hint() {
        return hint;
    }

    /** The position of a leading {@code CONSISTENT_WITH=<gtid>} hint; empty when absent or malformed. */
    public Optional<GtidPosition> consistencyToken() {
        return consistencyToken;
    }

    public boolean has(StatementProperty property) {
        return (propertyBits & (1 << property.ordinal())) != 0;
    }

    public Set<StatementProperty> properties() {
        EnumSet<StatementProperty> set = EnumSet.noneOf(StatementProperty.class);
        for (StatementProperty p : StatementProperty.values()) {
            if (has(p)) {
                set.add(p);
            }
        }
        return set;
    }

    /** BEHAVIOUR §7 reasons this statement locks a pooled backend connection to its client. */
    public boolean triggers(LockCause cause) {
        return (lockCauseBits & (1 << cause.ordinal())) != 0;
    }

    /** Whether this statement locks a pooled backend connection to its client for any reason. */
    public boolean locksAny() {
        return lockCauseBits != 0;
    }

    public Set<LockCause> lockCauses() {
        EnumSet<LockCause> set = EnumSet.noneOf(LockCause.class);
        for (LockCause c : LockCause.values()) {
            if (triggers(c)) {
                set.add(c);
            }
        }
        return set;
    }

    public TransactionControl transactionControl() {
        return transactionControl;
    }

    /** Options of START TRANSACTION. */
    public boolean hasTransactionOption(TransactionOption option) {
        return (transactionOptionBits & (1 << option.ordinal())) != 0;
    }

    public AutocommitChange autocommitChange() {
        return autocommitChange;
    }

    public Optional<IsolationChange> isolationChange() {
        return isolationChange;
    }

    /** Present for statements that go to every backend and may need replaying (BEHAVIOUR §3). */
    public Optional<SessionCommand> sessionCommand() {
        return sessionCommand;
    }

    public boolean isSessionCommand() {
        return sessionCommand.isPresent();
    }

    /** The database a USE statement switches to, as written (unquoted). */
    public Optional<String> schemaChange() {
        return schemaChange;
    }

    /** CREATE TEMPORARY TABLE names. */
    public List<TableName> temporaryTablesCreated() {
        return temporaryTablesCreated;
    }

    /** DROP [TEMPORARY] TABLE names: a plain DROP TABLE also drops a temporary table of that name. */
    public List<TableName> tablesDropped() {
        return tablesDropped;
    }

    /** Whether the statement may read or write {@code table} (schema ignored; false positives possible, see above). */
    public boolean mayReference(TableName table) {
        long bits = TableFingerprint.of(table.name());
        return (referencedTables & bits) == bits;
    }

    /** The fingerprint of every table name in a table position (FROM, JOIN, UPDATE, INTO, TABLE, …). */
    public long referencedTablesFingerprint() {
        return referencedTables;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Statement other && kind == other.kind && hint == other.hint
                && consistencyToken.equals(other.consistencyToken) && propertyBits == other.propertyBits
                && lockCauseBits == other.lockCauseBits && transactionControl == other.transactionControl
                && transactionOptionBits == other.transactionOptionBits && autocommitChange == other.autocommitChange
                && isolationChange.equals(other.isolationChange) && sessionCommand.equals(other.sessionCommand)
                && schemaChange.equals(other.schemaChange)
                && temporaryTablesCreated.equals(other.temporaryTablesCreated)
                && tablesDropped.equals(other.tablesDropped) && referencedTables == other.referencedTables;
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, hint, consistencyToken, propertyBits, lockCauseBits, transactionControl,
                transactionOptionBits, autocommitChange, isolationChange, sessionCommand, schemaChange,
                temporaryTablesCreated, tablesDropped, referencedTables);
    }

    @Override
    public String toString() {
        return "Statement{" + kind + (hint == Hint.NONE ? "" : ", " + hint) + ", " + properties()
                + (transactionControl == TransactionControl.NONE ? "" : ", " + transactionControl)
                + sessionCommand.map(c -> ", sets " + c.variables()).orElse("") + "}";
    }
}
