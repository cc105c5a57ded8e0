package io.sluice.filter.audit;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.sluice.proxy.filter.AuthenticatedPrincipal;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Policy refusals and quota throttles are sampled: at most one event per principal and type per interval, and every
 * one left out is counted in an {@code events.suppressed} event, written before the principal's next event of that
 * type, by the periodic sweep once the interval is over, or at shutdown.
 */
class AuditSamplingTest {

    private static ProduceResponseData throttled(int ms) {
        ProduceResponseData response = new ProduceResponseData().setThrottleTimeMs(ms);
        response.responses().add(new ProduceResponseData.TopicProduceResponse().setName("orders").setPartitionResponses(List.of(
                new ProduceResponseData.PartitionProduceResponse().setIndex(0))));
        return response;
    }

    private static ProduceResponseData refusedByPolicy() {
        ProduceResponseData response = new ProduceResponseData();
        // A produce policy refuses with the precise error, naming itself in the message.
        response.responses().add(new ProduceResponseData.TopicProduceResponse().setName("orders").setPartitionResponses(List.of(
                new ProduceResponseData.PartitionProduceResponse().setIndex(0).setErrorCode(Errors.INVALID_REQUIRED_ACKS.code())
                        .setErrorMessage("policy produce.acks (rule tenants): acks=1, acks=all required"))));
        return response;
    }

    @Test
    void throttlesOfOnePrincipalAreOneEventPerIntervalAndTheRestAreCountedBeforeTheNext() {
        try (AuditHarness audit = new AuditHarness(Duration.ofSeconds(60))) {
            audit.harness.context().authenticated(new AuthenticatedPrincipal("flooder", "OAUTHBEARER", Map.of()));
            audit.harness.response(throttled(250));
            audit.advance(Duration.ofSeconds(1));
            audit.harness.response(throttled(300));
            audit.advance(Duration.ofSeconds(1));
            audit.harness.response(throttled(400));
            audit.harness.response(throttled(0));
            audit.advance(Duration.ofSeconds(58));
            // The interval is over: the count first, then this one, which opens the next window.
            audit.harness.response(throttled(100));

            List<JsonNode> events = audit.awaitEvents(5);
            assertThat(events).extracting(e -> e.get("type").asText()).containsExactly("connection.opened", "authentication.succeeded",
                    "quota.throttled", "events.suppressed", "quota.throttled");
            assertThat(events.get(2).toString()).endsWith(",\"principal\":\"flooder\",\"api\":\"Produce\",\"throttleTimeMs\":250}");
            assertThat(events.get(3).toString()).isEqualTo("{\"version\":1,\"type\":\"events.suppressed\",\"time\":\"2026-12-01T09:31:00.000Z\","
                    + "\"virtualCluster\":\"harness\",\"sessionId\":null,\"clientAddress\":null,\"principal\":\"flooder\",\"suppressedType\":\"quota.throttled\","
                    + "\"count\":2,\"firstSuppressed\":\"2026-12-01T09:30:01.000Z\",\"lastSuppressed\":\"2026-12-01T09:30:02.000Z\"}");
            assertThat(events.get(4).get("throttleTimeMs").asInt()).isEqualTo(100);
            assertThat(audit.counter("sluice.audit.events.suppressed", "type", "quota.throttled")).isEqualTo(2.0);
        }
    }

    @Test
    void policyRefusalsAreSampledPerPrincipalAndCountsComeOutAtTheSweepAndAtShutdown() {
        try (AuditHarness audit = new AuditHarness(Duration.ofSeconds(10))) {
            audit.harness.context().authenticated(new AuthenticatedPrincipal("tenant-a", "OAUTHBEARER", Map.of()));
            for (int i = 0; i < 4; i++) {
                audit.harness.response(refusedByPolicy());
            }
            // The sweep, every interval on the factory's event loop, writes the count of the window that is over.
            audit.advance(Duration.ofSeconds(10));
            audit.harness.response(refusedByPolicy());
            audit.harness.response(refusedByPolicy());
            audit.shutdown();

            List<JsonNode> events = audit.events();
            assertThat(events).extracting(e -> e.get("type").asText()).containsExactly("connection.opened", "authentication.succeeded",
                    "policy.refused", "events.suppressed", "policy.refused", "events.suppressed");
            assertThat(events.get(2).toString()).endsWith(",\"principal\":\"tenant-a\",\"api\":\"Produce\",\"policy\":\"produce.acks\",\"resources\":["
                    + "{\"type\":\"topic\",\"name\":\"orders\",\"error\":\"INVALID_REQUIRED_ACKS\",\"message\":\"policy produce.acks (rule tenants): acks=1, acks=all required\"}]}");
            assertThat(events.get(3).get("count").asLong()).as("by the sweep").isEqualTo(3);
            assertThat(events.get(5).get("count").asLong()).as("at shutdown").isEqualTo(1);
            assertThat(events.get(5).get("suppressedType").asText()).isEqualTo("policy.refused");
        }
    }

    @Test
    void principalsAreSampledApartAndBeyondTheCapShareOneWindow() {
        Sampler sampler = new Sampler(new TestClock(), Duration.ofSeconds(60), 2);
        assertThat(sampler.admit(EventType.QUOTA_THROTTLED, "vc", "a").admitted()).isTrue();
        assertThat(sampler.admit(EventType.QUOTA_THROTTLED, "vc", "a").admitted()).isFalse();
        assertThat(sampler.admit(EventType.POLICY_REFUSED, "vc", "a").admitted()).as("another type, another window").isTrue();
        assertThat(sampler.admit(EventType.QUOTA_THROTTLED, "vc", "b").admitted()).as("beyond two tracked: the overflow window").isTrue();
        assertThat(sampler.admit(EventType.QUOTA_THROTTLED, "vc", "c").admitted()).isFalse();
        assertThat(sampler.admit(EventType.QUOTA_THROTTLED, "other-vc", "a").admitted()).as("the overflow window is per virtual cluster too").isTrue();
        assertThat(sampler.flush()).extracting(s -> s.key().virtualCluster() + "/" + s.key().principal() + "=" + s.count())
                .containsExactlyInAnyOrder("vc/a=1", "vc/" + Sampler.OVERFLOW_PRINCIPAL + "=1");
        assertThat(sampler.flush()).as("each count is reported once").isEmpty();
    }
}
