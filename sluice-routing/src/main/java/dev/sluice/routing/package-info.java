/** Where each statement goes: classifier, session state, topology, policy, router. Pure: no I/O, no clocks, no threads. */
package dev.sluice.routing;
