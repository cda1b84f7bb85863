/**
 * Command phase responses: OK (with session state tracking), ERR, EOF, PREPARE OK, result set
 * packets, and a writer for result sets the proxy answers itself.
 *
 * @see <a href="https://mariadb.com/kb/en/result-set-packets/">MariaDB: result set packets</a>
 */
package dev.sluice.protocol.response;
