package dev.sluice.server.frontend;

import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.routing.sql.KillStatement;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The KILLs of a text of several statements, resolved one after the other in the order they
 * were written, each then replaced by the statement that answers as it would have
 * ({@link KillCommands#standIn}). A {@code KILL QUERY} whose target runs a statement sends the
 * interruption ahead of the text, through the killer's own connection to that node.
 */
final class MultiStatementKills {

    private MultiStatementKills() {
    }

    /** The text with its KILLs replaced; empty when one of them ends the killer's own connection. */
    static CompletableFuture<Optional<byte[]>> resolve(KillCommands kills, byte[] text, List<KillStatement> found,
            ClientCharset charset) {
        CompletableFuture<Rebuilt> chain = CompletableFuture.completedFuture(new Rebuilt());
        int[] copied = {0};
        for (KillStatement kill : found) {
            chain = chain.thenCompose(out -> {
                if (out.endsOwnConnection) {
                    return CompletableFuture.completedFuture(out);
                }
                CompletableFuture<KillOutcome> outcome = kill.connectionId().isPresent()
                        ? kills.resolve(kill.connectionId().getAsLong(), kill.queryOnly())
                        : CompletableFuture.completedFuture(KillCommands.notAnId());
                return outcome.thenApply(o -> {
                    if (o instanceof KillOutcome.OwnConnection) {
                        out.endsOwnConnection = true;
                        return out;
                    }
                    if (o instanceof KillOutcome.InterruptOn on) {
                        kills.interruptFirst(on);
                    }
                    out.bytes.write(text, copied[0], kill.start() - copied[0]);
                    out.bytes.writeBytes(charset.encode(KillCommands.standIn(o)));
                    copied[0] = kill.end();
                    return out;
                });
            });
        }
        return chain.thenApply(out -> {
            if (out.endsOwnConnection) {
                return Optional.empty();
            }
            out.bytes.write(text, copied[0], text.length - copied[0]);
            return Optional.of(out.bytes.toByteArray());
        });
    }

    /** The text being rebuilt, and whether a KILL of the killer itself cut it short. */
    private static final class Rebuilt {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        boolean endsOwnConnection;
    }
}
