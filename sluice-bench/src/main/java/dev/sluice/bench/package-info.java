/** Benchmarks (not tests). */
package dev.sluice.bench;
