/**
 * Packet framing: 4-byte headers, sequence ids, 16 MB split and join, the Netty frame decoder
 * and encoder.
 *
 * @see <a href="https://mariadb.com/kb/en/0-packet/">MariaDB: packet</a>
 */
package dev.sluice.protocol.packet;
