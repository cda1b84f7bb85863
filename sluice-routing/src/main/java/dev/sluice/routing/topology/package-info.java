/** Immutable cluster snapshots: nodes with stable ids, configuration and the monitor's latest state (SPEC §1, §4). */
package dev.sluice.routing.topology;
