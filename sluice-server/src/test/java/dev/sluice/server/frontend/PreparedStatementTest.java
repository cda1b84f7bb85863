package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.routing.sql.SqlClassifier;
import dev.sluice.server.backend.BackendConnection;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * A statement id names a statement of one backend connection: after that connection is lost —
 * whether or not anyone was told — a new connection to the same node must prepare the statement
 * again, never be given the lost connection's id (the server answers 1243, or runs another
 * statement that happens to have that id there).
 */
class PreparedStatementTest {
    private static final String SQL = "SELECT c FROM sbtest1 WHERE id=?";
    private static final int RO1 = 1;

    private static PreparedStatement statement() {
        return new PreparedStatement(1, new byte[0], SQL, SqlClassifier.classify(SQL));
    }

    @Test
    void anIdIsGivenOnlyForTheConnectionThatPreparedIt() {
        PreparedStatement ps = statement();
        BackendConnection first = FakeBackends.connection("ro1", RO1);
        ps.preparedOn(first, 2);
        assertThat(ps.idOn(first)).isEqualTo(OptionalInt.of(2));

        // The connection dies; nothing tells the statement. The session opens another to ro1.
        first.channel().close();
        BackendConnection second = FakeBackends.connection("ro1", RO1);

        assertThat(ps.idOn(second)).as("the new connection has no statement 2").isEmpty();
        ps.preparedOn(second, 1);
        assertThat(ps.idOn(second)).isEqualTo(OptionalInt.of(1));
        assertThat(ps.idOn(first)).as("the old connection's id is gone").isEmpty();
    }

    @Test
    void parameterTypesSentToALostConnectionAreSentAgainToItsReplacement() {
        PreparedStatement ps = statement();
        BackendConnection first = FakeBackends.connection("ro1", RO1);
        ps.preparedOn(first, 2);
        ps.paramTypes(new byte[] {8, 0}, first);
        assertThat(ps.typesKnownBy(first)).isTrue();

        BackendConnection second = FakeBackends.connection("ro1", RO1);
        ps.preparedOn(second, 1);
        assertThat(ps.typesKnownBy(second)).as("a new connection never saw the types").isFalse();
        ps.typesSentTo(second);
        assertThat(ps.typesKnownBy(second)).isTrue();
    }

    @Test
    void newTypesSentToOneConnectionAreNewToTheOthers() {
        PreparedStatement ps = statement();
        BackendConnection ro1 = FakeBackends.connection("ro1", RO1);
        BackendConnection primary = FakeBackends.connection("primary", 0);
        ps.preparedOn(ro1, 2);
        ps.preparedOn(primary, 5);
        ps.paramTypes(new byte[] {8, 0}, ro1);
        ps.typesSentTo(primary);
        ps.paramTypes(new byte[] {(byte) 0xFD, 0}, primary);
        assertThat(ps.typesKnownBy(primary)).isTrue();
        assertThat(ps.typesKnownBy(ro1)).isFalse();
    }

    @Test
    void aCursorOrLongDataBelongsToOneConnection() {
        PreparedStatement ps = statement();
        BackendConnection first = FakeBackends.connection("ro1", RO1);
        ps.cursorOn(first);
        ps.longDataOn(first);
        BackendConnection second = FakeBackends.connection("ro1", RO1);
        assertThat(ps.cursor().is(first)).isTrue();
        assertThat(ps.cursor().is(second)).isFalse();
        assertThat(ps.longData().is(second)).isFalse();
        ps.longDataUsed();
        assertThat(ps.longData().isNone()).isTrue();
    }
}
