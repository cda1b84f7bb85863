/** The Netty runtime of the proxy. */
package dev.sluice.server;
