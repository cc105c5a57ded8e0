package com.example.sluice;

import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

import io.sluice.proxy.filter.harness.FilterHarness;
import io.sluice.proxy.filter.harness.RequestOutcome;
import io.sluice.proxy.filter.harness.Verdict;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The sample filter tested as a plugin author would: with FilterHarness, no proxy and no broker. */
class TopicNamePolicyTest {

    private static CreateTopicsRequestData create(String... names) {
        CreateTopicsRequestData request = new CreateTopicsRequestData().setTimeoutMs(1000);
        for (String name : names) {
            request.topics().add(new CreateTopicsRequestData.CreatableTopic().setName(name).setNumPartitions(1).setReplicationFactor((short) 1));
        }
        return request;
    }

    @Test
    void namesWithThePrefixGoToTheBroker() {
        try (FilterHarness harness = FilterHarness.of("team-topics", new TopicNamePolicy(), new TopicNamePolicy.Config("team-a."))) {
            RequestOutcome outcome = harness.request(create("team-a.orders", "team-a.payments"));

            assertEquals(Verdict.FORWARDED, outcome.verdict());
            assertEquals(2, ((CreateTopicsRequestData) outcome.forwarded()).topics().size());
        }
    }

    @Test
    void oneNameWithoutThePrefixRefusesTheWholeRequestLocallyAndIsCounted() {
        try (FilterHarness harness = FilterHarness.of("team-topics", new TopicNamePolicy(), new TopicNamePolicy.Config("team-a."))) {
            RequestOutcome outcome = harness.request(create("team-a.orders", "scratch"));

            assertEquals(Verdict.ANSWERED, outcome.verdict());
            CreateTopicsResponseData answer = (CreateTopicsResponseData) outcome.answer();
            assertEquals(2, answer.topics().size());
            answer.topics().forEach(topic -> assertEquals(Errors.POLICY_VIOLATION.code(), topic.errorCode(), topic.name()));
            assertEquals(1.0, harness.meterRegistry().get("sample.topic.policy.refusals").tag("filter", "team-topics").counter().count());
        }
    }

    @Test
    void otherApisAreNotHandedToTheFilter() {
        try (FilterHarness harness = FilterHarness.of(new TopicNamePolicy(), new TopicNamePolicy.Config("team-a."))) {
            RequestOutcome outcome = harness.request(new MetadataRequestData());

            assertFalse(outcome.handled());
            assertEquals(Verdict.FORWARDED, outcome.verdict());
        }
    }

    @Test
    void aBlankPrefixStopsTheProxyFromStarting() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FilterHarness.of(new TopicNamePolicy(), new TopicNamePolicy.Config(" ")));
        assertEquals("requiredPrefix: required, e.g. team-a.", e.getMessage());
    }
}
