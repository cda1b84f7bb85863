package dev.sluice.server.frontend;

import static dev.sluice.protocol.Command.COM_QUERY;
import static dev.sluice.protocol.Command.COM_SET_OPTION;

import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.routing.sql.SessionCommand;
import dev.sluice.server.backend.InternalQuery;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The state a client session built up that each of its backend connections must carry: schema,
 * the session commands in the order the client sent them (USE, SET …, user variables as
 * literals), the character sets, the multi-statement option. One model for every use: a backend
 * opened late {@link #replay replays} it, a pooled connection is {@link #tag tagged} with it so
 * that it can be handed to a session in the same state as it is, and a session moved to another
 * node replays it there.
 *
 * @param schema the current schema, if any
 * @param loginCharset the character set a connection starts in (the login's)
 * @param clientCharset the character set the client writes in now
 * @param multiStatementOption the client's last COM_SET_OPTION, or {@link #NO_OPTION}
 * @param history the session commands to replay, in the order the client sent them
 * @param autocommit the client's autocommit setting
 */
record SessionState(Optional<String> schema, ClientCharset loginCharset, ClientCharset clientCharset,
        int multiStatementOption, List<SessionCommand> history, boolean autocommit) {

    static final int NO_OPTION = -1;
    /**
     * Replicas stay in autocommit whatever the client set: a replica never sees the client's
     * COMMIT (it goes to the primary), so an implicit transaction there would pin its reads to an
     * ever older snapshot. Reads a replica serves are single statements anyway.
     */
    static final String AUTOCOMMIT_ON = "SET autocommit=1";
    private static final String CLIENT_CHARSET = "SET character_set_client = ";
    /** COM_SET_OPTION's payload: the command byte and a 2-byte option. */
    private static final int SET_OPTION_PAYLOAD = 3;

    SessionState {
        history = List.copyOf(history);
    }

    /** The tag of a connection just reset by COM_RESET_CONNECTION while on {@code schema}. */
    static String freshTag(Optional<String> schema) {
        return tag(schema, NO_OPTION, List.of());
    }

    /** The state in one comparable string: two connections with the same tag serve the session alike. */
    String tag() {
        return tag(schema, multiStatementOption, history);
    }

    private static String tag(Optional<String> schema, int option, List<SessionCommand> history) {
        StringBuilder tag = new StringBuilder("db=").append(schema.orElse("")).append("\u0000opt=").append(option);
        for (SessionCommand command : history) {
            tag.append('\u0000').append(command.charset().name()).append(':').append(command.sql());
        }
        return tag.toString();
    }

    /**
     * What a connection fresh from its login (or a reset) runs first to take on this state, in the
     * order the client sent it. The connection starts in the login's character set; each command
     * is sent in the one the client wrote it in, so a command with non-ASCII text written under
     * another character set than the one in force at that point is preceded by a
     * {@code SET character_set_client} to its own, and the replay ends in the client's current one.
     *
     * @param toReplica the connection is a replica's, which stays in autocommit
     */
    List<ReplayCommand> replay(ByteBufAllocator alloc, boolean toReplica) {
        List<ReplayCommand> out = new ArrayList<>();
        if (multiStatementOption != NO_OPTION) {
            ByteBuf p = alloc.buffer(Packets.HEADER_SIZE + SET_OPTION_PAYLOAD);
            p.writeMediumLE(SET_OPTION_PAYLOAD).writeByte(0).writeByte(COM_SET_OPTION).writeShortLE(multiStatementOption);
            out.add(new ReplayCommand(p, ResponseKind.SINGLE));
        }
        ClientCharset inForce = loginCharset;
        for (SessionCommand command : history) {
            if (!command.isAscii() && !command.charset().equals(inForce)) {
                out.add(internal(alloc, CLIENT_CHARSET + command.charset().name()));
                inForce = command.charset();
            }
            out.add(new ReplayCommand(queryPacket(alloc, command.bytes()), ResponseKind.RESULT));
            inForce = command.setsClientCharset().orElse(inForce);
        }
        if (!inForce.equals(clientCharset)) {
            out.add(internal(alloc, CLIENT_CHARSET + clientCharset.name()));
        }
        if (toReplica && !autocommit) {
            out.add(internal(alloc, AUTOCOMMIT_ON));
        }
        return out;
    }

    private static ReplayCommand internal(ByteBufAllocator alloc, String asciiSql) {
        return new ReplayCommand(InternalQuery.queryPacket(alloc.buffer(), asciiSql), ResponseKind.RESULT);
    }

    /** A COM_QUERY packet of the statement text {@code sql}, bytes as they are. */
    private static ByteBuf queryPacket(ByteBufAllocator alloc, byte[] sql) {
        ByteBuf out = alloc.buffer(Packets.HEADER_SIZE + 1 + sql.length);
        out.writeMediumLE(1 + sql.length).writeByte(0).writeByte(COM_QUERY).writeBytes(sql);
        return out;
    }
}
