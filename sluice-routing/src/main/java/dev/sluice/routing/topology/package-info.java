/** Immutable cluster snapshots: nodes with stable ids, configuration and the monitor's latest state (BEHAVIOUR §1, §4). */
package dev.sluice.routing.topology;
