/** GTID positions of both dialects (MariaDB {@code d-s-n} lists, MySQL {@code uuid:intervals} sets): parse, compare, merge. */
package dev.sluice.routing.gtid;
