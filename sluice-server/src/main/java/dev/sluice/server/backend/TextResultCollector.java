package dev.sluice.server.backend;

import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.response.ColumnDefinition;
import dev.sluice.protocol.stream.ResponseTracker;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Collects the whole (small) response of an internal query and decodes it as a text result set.
 * Internal queries are Sluice's own and return a handful of rows; a limit guards against a
 * surprise.
 */
public final class TextResultCollector implements ResponseSink {
    private static final int LIMIT = 16 * 1024 * 1024;
    private static final int OK = 0x00;
    private static final int ERR = 0xFF;
    private static final int EOF = 0xFE;
    private static final int NULL_VALUE = 0xFB;
    private static final int EOF_MAX_LENGTH = 9;

    private final CompositeByteBuf bytes = Unpooled.compositeBuffer(Integer.MAX_VALUE);
    private final CompletableFuture<QueryResult> result = new CompletableFuture<>();

    public CompletableFuture<QueryResult> result() {
        return result;
    }

    @Override
    public void onBytes(ByteBuf slice) {
        if (bytes.readableBytes() + slice.readableBytes() > LIMIT) {
            slice.release();
            return;
        }
        bytes.addComponent(true, slice);
    }

    @Override
    public void onComplete(BackendConnection backend, ResponseTracker tracker) {
        try {
            result.complete(decode(bytes, backend.capabilities()));
        } catch (RuntimeException e) {
            result.completeExceptionally(new BackendException("unreadable answer from backend '"
                    + backend.nodeName() + "': " + e.getMessage(), e));
        } finally {
            bytes.release();
        }
    }

    @Override
    public void onFailure(BackendConnection backend, Throwable cause) {
        bytes.release();
        result.completeExceptionally(cause);
    }

    static QueryResult decode(ByteBuf in, long capabilities) {
        boolean deprecateEof = BackendLogin.deprecateEof(capabilities);
        List<ByteBuf> packets = new ArrayList<>();
        while (in.readableBytes() >= Packets.HEADER_SIZE) {
            int len = in.readUnsignedMediumLE();
            in.skipBytes(1);
            packets.add(in.readSlice(len));
        }
        ByteBuf first = packets.get(0);
        int head = first.getUnsignedByte(first.readerIndex());
        if (head == ERR) {
            return new QueryResult(List.of(), List.of(), 0, Optional.of(error(first)));
        }
        if (head == OK || (head == EOF && first.readableBytes() < EOF_MAX_LENGTH)) {
            first.skipBytes(1);
            long affected = head == OK ? readLenenc(first) : 0;
            return new QueryResult(List.of(), List.of(), affected, Optional.empty());
        }
        int columns = (int) readLenenc(first);
        List<String> names = new ArrayList<>(columns);
        List<Integer> types = new ArrayList<>(columns);
        int i = 1;
        for (int c = 0; c < columns; c++, i++) {
            ColumnDefinition definition = ColumnDefinition.decode(packets.get(i), capabilities);
            names.add(definition.name());
            types.add(definition.type());
        }
        if (!deprecateEof) {
            i++;
        }
        List<List<String>> rows = new ArrayList<>();
        for (; i < packets.size(); i++) {
            ByteBuf row = packets.get(i);
            int b = row.getUnsignedByte(row.readerIndex());
            if (b == ERR) {
                return new QueryResult(names, types, rows, 0, Optional.of(error(row)));
            }
            if (b == EOF && row.readableBytes() < (deprecateEof ? Packets.MAX_PAYLOAD : EOF_MAX_LENGTH)) {
                break;
            }
            List<String> values = new ArrayList<>(columns);
            for (int c = 0; c < columns; c++) {
                values.add(readString(row));
            }
            rows.add(values);
        }
        return new QueryResult(names, types, rows, 0, Optional.empty());
    }

    private static BackendException.ServerError error(ByteBuf p) {
        final int sqlStateLength = 5;
        p.skipBytes(1);
        int code = p.readUnsignedShortLE();
        String state = "HY000";
        if (p.isReadable() && p.getByte(p.readerIndex()) == '#') {
            p.skipBytes(1);
            state = p.readCharSequence(sqlStateLength, StandardCharsets.US_ASCII).toString();
        }
        return new BackendException.ServerError(code, state, p.readCharSequence(p.readableBytes(),
                StandardCharsets.UTF_8).toString());
    }

    private static long readLenenc(ByteBuf b) {
        int first = b.readUnsignedByte();
        return switch (first) {
            case 0xFC -> b.readUnsignedShortLE();
            case 0xFD -> b.readUnsignedMediumLE();
            case 0xFE -> b.readLongLE();
            default -> first;
        };
    }

    private static String readString(ByteBuf b) {
        if (b.getUnsignedByte(b.readerIndex()) == NULL_VALUE) {
            b.skipBytes(1);
            return null;
        }
        int len = (int) readLenenc(b);
        return b.readCharSequence(len, StandardCharsets.UTF_8).toString();
    }
}
