/**
 * The JDBC client of the read-your-writes conformance check ({@code
 * sluice-bench/scripts/conformance-clients.sh}): the same protocol as the PHP, Python, Go and node
 * clients in {@code sluice-bench/conformance/clients}, run with MySQL Connector/J or MariaDB
 * Connector/J by the URL's scheme, each with its defaults.
 */
package dev.sluice.bench.conformance;
