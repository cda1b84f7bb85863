package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.LengthEncoded;
import dev.sluice.routing.sql.FoundRows;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PreviousStatementTest {

    private static ByteBuf query(String sql) {
        byte[] text = sql.getBytes(StandardCharsets.UTF_8);
        return Unpooled.buffer().writeMediumLE(text.length + 1).writeByte(0).writeByte(0x03).writeBytes(text);
    }

    private static ByteBuf ok(int header, long affected, long insertId) {
        ByteBuf b = Unpooled.buffer().writeByte(header);
        LengthEncoded.writeInteger(b, affected);
        LengthEncoded.writeInteger(b, insertId);
        return b.writeShortLE(2).writeShortLE(0);
    }

    @Test
    void onlyThePlainRowCountQueryIsAnsweredLocally() {
        assertThat(PreviousStatement.rowCountQuery(query("SELECT ROW_COUNT()"))).contains("ROW_COUNT()");
        assertThat(PreviousStatement.rowCountQuery(query("select row_count()"))).as("named as written")
                .contains("row_count()");
        assertThat(PreviousStatement.foundRowsQuery(query("select found_rows();"))).contains("found_rows()");
        assertThat(PreviousStatement.rowCountQuery(query(" select row_count ( ) AS n;"))).contains("n");
        assertThat(PreviousStatement.rowCountQuery(query("SELECT ROW_COUNT() `affected rows`"))).contains("affected rows");
        assertThat(PreviousStatement.rowCountQuery(query("SELECT ROW_COUNT() + 1"))).isEmpty();
        assertThat(PreviousStatement.rowCountQuery(query("SELECT ROW_COUNT(), FOUND_ROWS()"))).isEmpty();
    }

    @Test
    void rowCountIsTheAffectedRowsOfAPlainOkElseMinusOne() {
        PreviousStatement p = new PreviousStatement();
        p.started();
        ByteBuf update = ok(0x00, 3, 0);
        p.onOk(update, 0, update.readableBytes());
        p.ended(false, -1);
        assertThat(p.rowCount()).isEqualTo(3);
        p.started();
        ByteBuf endOfRows = ok(0xFE, 0, 0);
        p.onOk(endOfRows, 0, endOfRows.readableBytes());
        p.ended(false, 2);
        assertThat(p.rowCount()).as("after a result set").isEqualTo(-1);
        p.started();
        p.ended(true, -1);
        assertThat(p.rowCount()).as("after an error").isEqualTo(-1);
    }

    @Test
    void foundRowsIsKnownAfterASelectWhoseCountFollowsFromItsRows() {
        PreviousStatement p = new PreviousStatement();
        p.countsFoundRows(0);
        p.started();
        p.ended(false, 7);
        assertThat(p.foundRows()).isEqualTo(7);
        assertThat(p.foundRowsOnConnection()).isFalse();
        p.countsFoundRows(2);
        p.started();
        p.ended(false, 1);
        assertThat(p.foundRows()).as("LIMIT 2,1: the rows the offset skipped count").isEqualTo(3);
        p.calculatesFoundRows();
        p.countsFoundRows(0);
        p.started();
        p.ended(false, 1);
        assertThat(p.foundRows()).as("after SQL_CALC_FOUND_ROWS: the server's count").isEqualTo(-1);
        p.countsFoundRows(0);
        p.started();
        p.ended(false, 0);
        assertThat(p.foundRows()).as("an empty result, and the SQL_CALC_FOUND_ROWS mark is used up").isZero();
        p.countsFoundRows(0);
        p.started();
        p.ended(false, -1);
        assertThat(p.foundRows()).as("after an OK").isEqualTo(-1);
        p.countsFoundRows(0);
        p.started();
        p.ended(true, -1);
        assertThat(p.foundRows()).as("after an error").isEqualTo(-1);
        p.answeredLocally(true);
        assertThat(p.foundRows()).as("after Sluice's own one-row answer").isEqualTo(1);
        p.started();
        p.ended(false, 4);
        assertThat(p.foundRows()).as("a statement nobody read for its count").isEqualTo(-1);
    }

    @Test
    void rowsWhoseCountOnlyTheServerKnowsKeepTheirConnectionForTheNextStatement() {
        PreviousStatement p = new PreviousStatement();
        p.countsFoundRows(FoundRows.UNKNOWN);
        p.started();
        p.ended(false, 3);
        assertThat(p.foundRows()).as("a UNION, a SHOW …").isEqualTo(-1);
        assertThat(p.foundRowsOnConnection()).isTrue();
        p.countsFoundRows(5);
        p.started();
        p.ended(false, 0);
        assertThat(p.foundRowsOnConnection()).as("an offset that skipped every row there was").isTrue();
        p.countsFoundRows(0);
        p.started();
        p.ended(false, 2);
        assertThat(p.foundRowsOnConnection()).as("the next statement's own count").isFalse();
        p.countsFoundRows(FoundRows.UNKNOWN);
        p.started();
        p.ended(false, -1);
        assertThat(p.foundRowsOnConnection()).as("an OK").isFalse();
        p.countsFoundRows(FoundRows.UNKNOWN);
        p.started();
        p.ended(false, 3);
        p.answeredLocally(true);
        assertThat(p.foundRowsOnConnection()).as("after Sluice's own answer").isFalse();
    }

    @Test
    void thePlainFoundRowsQueryAndItsColumnName() {
        assertThat(PreviousStatement.foundRowsQuery(query("SELECT FOUND_ROWS()"))).contains("FOUND_ROWS()");
        assertThat(PreviousStatement.foundRowsQuery(query(" select found_rows ( ) AS n ;"))).contains("n");
        assertThat(PreviousStatement.foundRowsQuery(query("SELECT FOUND_ROWS() `total rows`"))).contains("total rows");
        assertThat(PreviousStatement.foundRowsQuery(query("SELECT FOUND_ROWS() + 1"))).isEmpty();
        assertThat(PreviousStatement.foundRowsQuery(query("SELECT ROW_COUNT()"))).isEmpty();
    }

    @Test
    void lastInsertIdKeepsTheLastNonZeroInsertId() {
        PreviousStatement p = new PreviousStatement();
        ByteBuf insert = ok(0x00, 1, 300);
        p.started();
        p.onOk(insert, 0, insert.readableBytes());
        ByteBuf update = ok(0x00, 5, 0);
        p.started();
        p.onOk(update, 0, update.readableBytes());
        assertThat(p.lastInsertId()).isEqualTo(300);
    }

    @Test
    void findsSqlCalcFoundRowsAndLastInsertIdWithAnArgument() {
        assertThat(PreviousStatement.calculatesFoundRows(query("select sql_calc_found_rows * from t limit 1"))).isTrue();
        assertThat(PreviousStatement.calculatesFoundRows(query("SELECT * FROM t LIMIT 1"))).isFalse();
        assertThat(PreviousStatement.setsLastInsertId(query("SELECT LAST_INSERT_ID(42)"))).isTrue();
        assertThat(PreviousStatement.setsLastInsertId(query("SELECT LAST_INSERT_ID( )"))).isFalse();
    }
}
