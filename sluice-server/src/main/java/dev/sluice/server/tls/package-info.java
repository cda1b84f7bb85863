/**
 * TLS material: the certificate Sluice shows clients (configured PEM files, or a self-signed pair
 * generated once and reused) and the contexts of Sluice's own TLS connections to backends.
 */
package dev.sluice.server.tls;
