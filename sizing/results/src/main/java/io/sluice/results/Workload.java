package io.sluice.results;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * An OpenMessaging Benchmark workload, with OMB's own field names, so the same file drives OMB and describes a run
 * of {@code sluice bench}. OMB records neither the target rate nor the shape of the load in its result file, so
 * every result is stored with the workload that produced it.
 *
 * @param producerRate messages per second for the whole workload (all topics, all producers), not per topic
 * @param messageSize  bytes of each message's value
 * @param testDurationMinutes OMB takes whole minutes; the bench's shorter runs are written as fractions
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Workload(String name,
                       int topics,
                       int partitionsPerTopic,
                       int messageSize,
                       String payloadFile,
                       int subscriptionsPerTopic,
                       int consumerPerSubscription,
                       int producersPerTopic,
                       double producerRate,
                       double consumerBacklogSizeGB,
                       double testDurationMinutes,
                       Double warmupDurationMinutes) {

    /**
     * Messages per second the consumers should read in total: every subscription reads every message of its topic.
     * OMB's {@code consumeRate} is this sum too.
     */
    public double targetConsumeRate() {
        return producerRate * subscriptionsPerTopic;
    }
}
