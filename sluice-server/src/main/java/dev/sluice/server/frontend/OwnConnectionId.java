package dev.sluice.server.frontend;

import dev.sluice.protocol.packet.Packets;
import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.routing.sql.ConnectionIdText;
import dev.sluice.routing.sql.Statement;
import dev.sluice.routing.sql.StatementProperty;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * {@code CONNECTION_ID()} answers the id the client got in its handshake, whichever server runs
 * the statement: the call is replaced by that id in the text of a COM_QUERY or COM_STMT_PREPARE
 * before it leaves (see {@link ConnectionIdText}). A text split over several packets is sent as
 * it is.
 *
 * @param connectionId what replaces the calls
 * @param charset the client's current character set, the one its texts are written in
 */
record OwnConnectionId(long connectionId, Supplier<ClientCharset> charset, ByteBufAllocator alloc) {
    /** Whether {@code statement} may hold a call to replace (the classifier reads only a text's first statement). */
    static boolean mayCall(Statement statement) {
        return statement.has(StatementProperty.CONNECTION_ID) || statement.has(StatementProperty.MULTI_STATEMENT);
    }

    /**
     * A new packet (same command byte and sequence) with the calls replaced, or empty when there
     * are none. {@code frame} is left as it is: the caller releases it when it takes the new one.
     */
    Optional<ByteBuf> rewrite(ByteBuf frame) {
        int payload = Packets.payloadLength(frame, frame.readerIndex());
        if (payload >= Packets.MAX_PAYLOAD) {
            return Optional.empty();
        }
        int textStart = frame.readerIndex() + Packets.HEADER_SIZE + 1;
        byte[] text = ByteBufUtil.getBytes(frame, textStart, frame.writerIndex() - textStart);
        return ConnectionIdText.rewrite(text, 0, text.length, charset.get(), connectionId)
                .filter(sql -> sql.length + 1 < Packets.MAX_PAYLOAD)
                .map(sql -> {
                    ByteBuf out = alloc.buffer(Packets.HEADER_SIZE + 1 + sql.length);
                    out.writeMediumLE(1 + sql.length)
                            .writeByte(frame.getByte(frame.readerIndex() + Packets.HEADER_SIZE - 1))
                            .writeByte(frame.getByte(frame.readerIndex() + Packets.HEADER_SIZE))
                            .writeBytes(sql);
                    return out;
                });
    }

    /**
     * A COM_STMT_PREPARE goes on with the calls replaced: the command's packet is replaced by a
     * copy with them, if it has any. The text is looked at only when it spells the function's name
     * somewhere.
     */
    void replaceIn(CommandFrame command) {
        ByteBuf frame = command.bytes();
        int textStart = frame.readerIndex() + Packets.HEADER_SIZE + 1;
        if (indexOfName(frame, textStart, frame.writerIndex()) < 0) {
            return;
        }
        rewrite(frame).ifPresent(command::replace);
    }

    private static final byte[] NAME = "connection_id".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    /** ASCII letters differ from their capitals by this bit. */
    private static final int CASE_BIT = 0x20;

    private static int lower(int b) {
        return b >= 'A' && b <= 'Z' ? b | CASE_BIT : b;
    }

    /** Where the function's name (any case) first appears in {@code frame[from, to)}, or -1. */
    static int indexOfName(ByteBuf frame, int from, int to) {
        for (int i = from; i + NAME.length <= to; i++) {
            int j = 0;
            while (j < NAME.length && lower(frame.getByte(i + j)) == NAME[j]) {
                j++;
            }
            if (j == NAME.length) {
                return i;
            }
        }
        return -1;
    }
}
