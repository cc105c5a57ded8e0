package io.sluice.sizing.plan;

import java.util.List;
import java.util.Optional;

import io.sluice.sizing.fit.CpuFitter;
import io.sluice.sizing.points.TrafficPoint;

/**
 * One scenario (a target: passthrough, encryption, ...) from its points to its pod plan.
 *
 * @param plan   absent when there is no fit (too few points, or a target without a proxy)
 * @param notes  why something is absent, or what the reader should know
 */
public record ScenarioSizing(String scenario, List<TrafficPoint> points, CpuFitter.Fits fits, Optional<PodPlan> plan, List<String> notes) {

    public List<TrafficPoint> healthy() {
        return points.stream().filter(p -> !p.saturated()).toList();
    }

    public List<TrafficPoint> saturated() {
        return points.stream().filter(TrafficPoint::saturated).toList();
    }
}
