/** Endpoint settings (BEHAVIOUR §1–§8), their configuration names and their validation. */
package dev.sluice.routing.policy;
