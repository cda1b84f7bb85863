package dev.sluice.server.backend;

import dev.sluice.protocol.Command;
import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.stream.ResponseKind;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/** Runs a query of Sluice's own on a backend connection and decodes its text result. */
public final class InternalQuery {
    private InternalQuery() {
    }

    /** Must be called on the backend's event loop. */
    public static CompletableFuture<QueryResult> run(BackendConnection backend, String sql) {
        TextResultCollector collector = new TextResultCollector();
        backend.send(queryPacket(backend.channel().alloc().buffer(), sql), ResponseKind.RESULT, collector);
        return collector.result();
    }

    /** Like {@link #run(BackendConnection, String)} for a text already in the connection's character set. */
    public static CompletableFuture<QueryResult> run(BackendConnection backend, byte[] sql) {
        TextResultCollector collector = new TextResultCollector();
        backend.send(queryPacket(backend.channel().alloc().buffer(), sql), ResponseKind.RESULT, collector);
        return collector.result();
    }

    /** A COM_QUERY packet of {@code sql}'s bytes as they are (header included, sequence id 0). */
    public static ByteBuf queryPacket(ByteBuf out, byte[] sql) {
        out.writeMediumLE(1 + sql.length).writeByte(0).writeByte(Command.COM_QUERY).writeBytes(sql);
        return out;
    }

    /** A COM_QUERY packet (header included, sequence id 0). */
    public static ByteBuf queryPacket(ByteBuf out, String sql) {
        byte[] text = sql.getBytes(StandardCharsets.UTF_8);
        ByteBuf payload = out.alloc().buffer(1 + text.length).writeByte(Command.COM_QUERY).writeBytes(text);
        try {
            Packets.writePacket(out, 0, payload);
        } finally {
            payload.release();
        }
        return out;
    }
}
