package dev.sluice.server.history;

import java.util.ArrayList;
import java.util.List;

/**
 * The last {@code capacity} values of one series, oldest first; a value Sluice could not take
 * (a node down, no statement in the step) is {@code NaN}, so every series of a history stays
 * aligned with its times. A full ring overwrites its oldest value: the memory is fixed at start.
 */
final class SeriesRing {
    private final double[] values;
    private int start;
    private int size;

    SeriesRing(int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.values = new double[capacity];
    }

    void add(double value) {
        if (size < values.length) {
            values[(start + size) % values.length] = value;
            size++;
        } else {
            values[start] = value;
            start = (start + 1) % values.length;
        }
    }

    int size() {
        return size;
    }

    /** No value anywhere in the window: the series is gone (a node or endpoint removed). */
    boolean isBlank() {
        for (int i = 0; i < size; i++) {
            if (!Double.isNaN(values[(start + i) % values.length])) {
                return false;
            }
        }
        return true;
    }

    double get(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException(index + " of " + size);
        }
        return values[(start + index) % values.length];
    }

    /** Oldest first, a missing value as null (JSON has no NaN). */
    List<Double> toList() {
        List<Double> out = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            double v = get(i);
            out.add(Double.isNaN(v) ? null : v);
        }
        return out;
    }
}
