package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.Command;
import dev.sluice.protocol.packet.Packets;
import dev.sluice.routing.sql.ClientCharset;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The CONNECTION_ID() rewrite of a client's packet: a COM_QUERY and a COM_STMT_PREPARE go on
 * with the session's own id in place of each call, as whole packets with the client's command
 * byte and sequence id; and no packet, however mangled its text, makes the rewrite throw (a
 * throw would cost the session).
 */
class OwnConnectionIdTest {
    private static final long OWN_ID = 42;

    /** The client's character set, which a test may change as a client's SET NAMES does. */
    private ClientCharset charset = ClientCharset.UTF8MB4;
    private final OwnConnectionId ownId = new OwnConnectionId(OWN_ID, () -> charset,
            UnpooledByteBufAllocator.DEFAULT);

    private static ByteBuf packet(int command, int sequenceId, byte[] text) {
        return Unpooled.buffer(Packets.HEADER_SIZE + 1 + text.length).writeMediumLE(1 + text.length)
                .writeByte(sequenceId).writeByte(command).writeBytes(text);
    }

    private static String text(ByteBuf packet) {
        int start = packet.readerIndex() + Packets.HEADER_SIZE + 1;
        return packet.toString(start, packet.writerIndex() - start, StandardCharsets.UTF_8);
    }

    @Test
    void aQueryGoesOnWithTheSessionsIdAsAWholePacket() {
        ByteBuf query = packet(Command.COM_QUERY, 0, "SELECT CONNECTION_ID()".getBytes(StandardCharsets.UTF_8));
        ByteBuf out = ownId.rewrite(query).orElseThrow();
        assertThat(text(out)).isEqualTo("SELECT CAST(0000000042 AS UNSIGNED) AS `CONNECTION_ID()`");
        assertThat(Packets.payloadLength(out, 0)).isEqualTo(out.readableBytes() - Packets.HEADER_SIZE);
        assertThat((int) out.getUnsignedByte(Packets.HEADER_SIZE)).isEqualTo(Command.COM_QUERY);
        assertThat(query.refCnt()).as("the caller's packet is left to the caller").isEqualTo(1);
        out.release();
        query.release();
    }

    @Test
    void aPrepareWithoutTheNameKeepsItsPacket() {
        CommandFrame prepare = new CommandFrame(packet(Command.COM_STMT_PREPARE, 0,
                "SELECT ? FROM t".getBytes(StandardCharsets.UTF_8)));
        ByteBuf before = prepare.bytes();
        ownId.replaceIn(prepare);
        assertThat(prepare.bytes()).isSameAs(before);
        prepare.release();
    }

    @Test
    void aPrepareWithACallGoesOnAsTheRewrittenPacketAndTheClientsIsReleased() {
        ByteBuf client = packet(Command.COM_STMT_PREPARE, 0, "SELECT CONNECTION_ID(), ?".getBytes(StandardCharsets.UTF_8));
        CommandFrame prepare = new CommandFrame(client);
        ownId.replaceIn(prepare);
        assertThat(client.refCnt()).isZero();
        assertThat(text(prepare.bytes())).contains("0000000042");
        assertThat((int) prepare.bytes().getUnsignedByte(Packets.HEADER_SIZE)).isEqualTo(Command.COM_STMT_PREPARE);
        prepare.release();
    }

    /** Any bytes at all, in single- and multi-byte character sets: a packet or nothing, never a throw. */
    @Test
    void mangledTextsNeverMakeTheRewriteThrow() {
        String[] seeds = {"SELECT CONNECTION_ID()", "SELECT a, CONNECTION_ID() + 1 AS x, (SELECT CONNECTION_ID()) FROM t",
            "SELECT /* c */ CONNECTION_ID() /* d */, b FROM t WHERE c = CONNECTION_ID(); SELECT 1",
            "select connection_id ( ) , 'CONNECTION_ID()' , `CONNECTION_ID()` from dual",
            "KILL CONNECTION_ID(); SELECT connection_id() INTO @id; CREATE VIEW v AS SELECT CONNECTION_ID()"};
        ClientCharset[] charsets = {ClientCharset.UTF8MB4, ClientCharset.ofCollation(28), ClientCharset.ofCollation(13),
            ClientCharset.ofCollation(8)};
        String punctuation = "(),;`'\"*/- \n#@.";
        Random random = new Random(20261202L);
        for (int i = 0; i < 100_000; i++) {
            byte[] text = seeds[random.nextInt(seeds.length)].getBytes(StandardCharsets.UTF_8);
            int changes = 1 + random.nextInt(4);
            for (int c = 0; c < changes; c++) {
                int at = random.nextInt(text.length);
                switch (random.nextInt(3)) {
                    case 0 -> text[at] = (byte) random.nextInt(256);
                    case 1 -> text[at] = (byte) punctuation.charAt(random.nextInt(punctuation.length()));
                    default -> text = Arrays.copyOfRange(text, 0, Math.max(1, at));
                }
            }
            charset = charsets[random.nextInt(charsets.length)];
            int command = random.nextBoolean() ? Command.COM_QUERY : Command.COM_STMT_PREPARE;
            int sequenceId = random.nextInt(256);
            String shown = charset + ": " + new String(text, StandardCharsets.ISO_8859_1);
            ByteBuf client = packet(command, sequenceId, text);
            CommandFrame frame = new CommandFrame(client);
            Optional<ByteBuf> rewritten;
            try {
                rewritten = ownId.rewrite(client);
                ownId.replaceIn(frame);
            } catch (RuntimeException e) {
                throw new AssertionError("the rewrite threw on " + shown, e);
            }
            rewritten.ifPresent(out -> {
                assertThat(Packets.payloadLength(out, 0)).as(shown).isEqualTo(out.readableBytes() - Packets.HEADER_SIZE);
                assertThat(Packets.sequenceId(out, 0)).as(shown).isEqualTo(sequenceId);
                assertThat((int) out.getUnsignedByte(Packets.HEADER_SIZE)).as(shown).isEqualTo(command);
                out.release();
            });
            frame.release();
        }
    }
}
