/** Per client connection routing state: transaction, pins, temporary tables, replay history, node set. */
package dev.sluice.routing.session;
