/** BEHAVIOUR §2 balancers: smooth weighted round-robin and least-active, over candidate bit masks. */
package dev.sluice.routing.balance;
