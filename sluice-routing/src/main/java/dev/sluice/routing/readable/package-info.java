/** BEHAVIOUR §4: which replicas may take reads (lag threshold, broken replication, reserved nodes). */
package dev.sluice.routing.readable;
