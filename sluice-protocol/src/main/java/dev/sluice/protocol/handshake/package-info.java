/**
 * Connection phase: server greeting, client login (and SSL request), auth switch and extra
 * auth data.
 *
 * <pre>
 *  server ── HandshakeV10 ──────────────▶ client
 *  server ◀── [SslRequest, TLS] HandshakeResponse41 ── client
 *  server ── OK | ERR | AuthSwitchRequest | AuthMoreData ──▶ client   (repeat until OK or ERR)
 * </pre>
 *
 * @see <a href="https://mariadb.com/kb/en/connection/">MariaDB: connection</a>
 */
package dev.sluice.protocol.handshake;
