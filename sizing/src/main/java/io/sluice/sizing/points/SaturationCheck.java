package io.sluice.sizing.points;

import java.util.ArrayList;
import java.util.List;

import io.sluice.results.Workload;
import io.sluice.results.read.OmbResult;

/**
 * Tells runs that carried their load from runs that were saturated: past saturation the CPU stops following the
 * traffic (the proxy, broker or load generator is at its limit), so such a point would bend the fit. A run is
 * saturated when any of these hold:
 * <ul>
 *   <li>it published less than 95 % of its target rate (OMB's producerRate), or its consumers read less than 95 % of
 *       what was published times the subscriptions;</li>
 *   <li>its backlog grew: it ended higher than it started and above two seconds of traffic (and 1,000 messages);</li>
 *   <li>its median publish delay, how late sends were against the schedule, reached 10 ms: the producer could not
 *       keep to its rate even if it later caught up;</li>
 *   <li>publishes failed, or the workload had no target rate (producerRate 0 asks OMB to find the maximum).</li>
 * </ul>
 */
public final class SaturationCheck {

    static final double ACHIEVED_FRACTION = 0.95;
    static final double BACKLOG_SECONDS = 2;
    static final double BACKLOG_FLOOR_MESSAGES = 1_000;
    static final double PUBLISH_DELAY_MEDIAN_MICROS = 10_000;

    private SaturationCheck() {
    }

    /** The reasons a run counts as saturated; empty when it carried its load. */
    public static List<String> reasons(Workload workload, OmbResult result) {
        List<String> reasons = new ArrayList<>();
        double target = workload.producerRate();
        double published = result.meanPublishRate();
        double consumed = result.meanConsumeRate();
        if (target <= 0) {
            reasons.add("no target rate (producerRate " + target + "): a maximum-rate run sits at the ceiling by design");
        } else if (published < ACHIEVED_FRACTION * target) {
            reasons.add(String.format("published %.1f %% of the target %,.0f msg/s", 100 * published / target, target));
        }
        double expectedConsume = published * workload.subscriptionsPerTopic();
        // A backlog workload drains a backlog: its consumers read faster than the producers write, never slower.
        if (expectedConsume > 0 && consumed < ACHIEVED_FRACTION * expectedConsume) {
            reasons.add(String.format("consumers read %.1f %% of what was published x %d subscription(s)",
                    100 * consumed / expectedConsume, workload.subscriptionsPerTopic()));
        }
        double backlogLimit = Math.max(BACKLOG_FLOOR_MESSAGES, BACKLOG_SECONDS * expectedConsume);
        if (result.lastBacklog() > result.firstBacklog() && result.lastBacklog() > backlogLimit) {
            reasons.add(String.format("backlog grew from %,.0f to %,.0f messages", result.firstBacklog(), result.lastBacklog()));
        }
        result.publishDelay50Micros().filter(delay -> delay >= PUBLISH_DELAY_MEDIAN_MICROS).ifPresent(delay ->
                reasons.add(String.format("median publish delay %.1f ms: the producer fell behind its schedule", delay / 1000)));
        if (result.meanPublishErrorRate() > 0) {
            reasons.add(String.format("%.1f publish errors/s", result.meanPublishErrorRate()));
        }
        return reasons;
    }
}
