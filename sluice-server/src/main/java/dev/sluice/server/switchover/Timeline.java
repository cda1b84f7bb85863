package dev.sluice.server.switchover;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** The steps of a switchover or failover done so far and how long each took; each is reported as it ends. */
final class Timeline {
    private final List<SwitchoverOutcome.Step> steps = new ArrayList<>();
    private final Consumer<String> stepDone;
    private long last = System.nanoTime();

    Timeline(Consumer<String> stepDone) {
        this.stepDone = stepDone;
    }

    void step(String name) {
        long now = System.nanoTime();
        steps.add(new SwitchoverOutcome.Step(name, Duration.ofNanos(now - last).toMillis()));
        last = now;
        stepDone.accept(name);
    }

    List<SwitchoverOutcome.Step> steps() {
        return List.copyOf(steps);
    }
}
