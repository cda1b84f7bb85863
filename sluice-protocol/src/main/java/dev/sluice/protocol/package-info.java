/**
 * MySQL / MariaDB client-server wire protocol.
 *
 * <pre>
 *  read:   bytes ─▶ packet.PacketFrameDecoder ─▶ Packet(seq, payload)
 *                     └─ then, by conversation phase: handshake.* (greeting, login, auth switch),
 *                        response.* (OK / ERR / EOF / PREPARE OK / result set packets), or only
 *                        the hot-path accessors (OkPacket.statusFlagsOf, sessionTrackedVariable)
 *  write:  record.encode(ByteBuf, seq, caps) or Packets.writePacket ─▶ bytes (16 MB split included)
 * </pre>
 *
 * <p>Every decoder reads from the reader index of a payload (packet header stripped), checks
 * every length against the bytes present and throws {@link dev.sluice.protocol.MalformedPacketException}
 * on bad input. Capabilities are a {@code long}: MySQL's 32 flags below, MariaDB's extended
 * ones above ({@link dev.sluice.protocol.Capabilities}).
 *
 * @see <a href="https://mariadb.com/kb/en/clientserver-protocol/">MariaDB: client/server protocol</a>
 * @see <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/PAGE_PROTOCOL.html">MySQL: client/server protocol</a>
 */
package dev.sluice.protocol;
