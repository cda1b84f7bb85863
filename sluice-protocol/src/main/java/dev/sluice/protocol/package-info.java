/** MySQL / MariaDB client-server wire protocol. */
package dev.sluice.protocol;
