package dev.sluice.server.frontend;

import dev.sluice.protocol.response.TextResultWriter;
import dev.sluice.server.metrics.SluiceMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * What Sluice writes to its client itself, rather than forwards from a backend: its errors, OKs
 * and the results it answers locally. Each takes the sequence id that follows the client's last
 * packet, in the form the client's capabilities ask for.
 */
final class ClientReplies {
    private final Channel client;
    private final ClientInbox inbox;
    private final LongSupplier capabilities;
    private final SluiceMetrics metrics;
    private final String endpoint;

    ClientReplies(Channel client, ClientInbox inbox, LongSupplier capabilities, SluiceMetrics metrics,
            String endpoint) {
        this.client = client;
        this.inbox = inbox;
        this.capabilities = capabilities;
        this.metrics = metrics;
        this.endpoint = endpoint;
    }

    /** The capabilities the client negotiated. */
    long capabilities() {
        return capabilities.getAsLong();
    }

    /** The sequence id of Sluice's next packet to the client. */
    int sequence() {
        return inbox.replySequence();
    }

    ByteBufAllocator alloc() {
        return client.alloc();
    }

    void error(int code, String sqlState, String message) {
        metrics.errorReturned(endpoint, code);
        send(Replies.error(client.alloc(), sequence(), capabilities(), code, sqlState, message));
    }

    void ok(int status) {
        send(Replies.ok(client.alloc(), sequence(), capabilities(), status));
    }

    /** A text result set of string columns, Sluice's own answer. */
    void textResult(int status, List<String> columns, List<List<String>> rows) {
        ByteBuf out = client.alloc().buffer();
        TextResultWriter.write(out, sequence(), capabilities(), status, columns, rows);
        send(out);
    }

    /** Packets written by the caller, with {@link #sequence()} and {@link #capabilities()}. */
    void send(ByteBuf packets) {
        client.writeAndFlush(packets, client.voidPromise());
    }
}
