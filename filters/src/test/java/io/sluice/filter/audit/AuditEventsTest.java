package io.sluice.filter.audit;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

import io.sluice.proxy.filter.AuthenticatedPrincipal;
import io.sluice.proxy.filter.harness.RequestOutcome;
import io.sluice.proxy.filter.harness.Verdict;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Audit filter's events of one connection, through the FilterHarness and the real stdout sink: connection, authentication and
 * denial events, each compared whole (the clock is the test's, so the lines are exact).
 */
class AuditEventsTest {

    private static final String COMMON = "\"virtualCluster\":\"harness\",\"sessionId\":\"harness-harness\",\"clientAddress\":\"198.51.100.7:4242\"";

    private static String line(String type, String time, String principal, String rest) {
        return "{\"version\":1,\"type\":\"" + type + "\",\"time\":\"" + time + "\"," + COMMON + ",\"principal\":"
                + (principal == null ? "null" : "\"" + principal + "\"") + rest + "}";
    }

    private static AuditHarness opened() {
        AuditHarness audit = new AuditHarness();
        audit.harness.clientAddress(new InetSocketAddress("198.51.100.7", 4242)).open();
        return audit;
    }

    @Test
    void aConnectionIsOpenedAndClosedWithItsByteCountsDurationAndLastPrincipal() {
        try (AuditHarness audit = opened()) {
            audit.clock.advance(Duration.ofMillis(1500));
            audit.harness.context().authenticated(new AuthenticatedPrincipal("alice", "OAUTHBEARER", Map.of()));
            audit.harness.clientBytes(120, 340).closeConnection();

            audit.awaitEvents(3);
            assertThat(audit.written().split("\n")).containsExactly(
                    line("connection.opened", "2026-12-01T09:30:00.000Z", null, ""),
                    // A principal reported by an authenticating filter is noticed at the next thing the audit sees.
                    line("authentication.succeeded", "2026-12-01T09:30:01.500Z", "alice", ",\"mechanism\":\"OAUTHBEARER\",\"reauthentication\":false"),
                    line("connection.closed", "2026-12-01T09:30:01.500Z", "alice", ",\"bytesFromClient\":120,\"bytesToClient\":340,\"durationMs\":1500"));
            assertThat(audit.counter("sluice.audit.events", "type", "connection.opened")).isEqualTo(1.0);
        }
    }

    @Test
    void saslFailuresAndSuccessesAreAuthenticationEventsWithMechanismAndReasonAndNeverTheToken() {
        String token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXNlY3JldA";
        try (AuditHarness audit = opened()) {
            RequestOutcome handshake = audit.harness.request(new SaslHandshakeRequestData().setMechanism("PLAIN"));
            assertThat(handshake.verdict()).isEqualTo(Verdict.FORWARDED);
            audit.harness.response(handshake, new SaslHandshakeResponseData().setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code())
                    .setMechanisms(List.of("OAUTHBEARER")));

            audit.harness.response(audit.harness.request(new SaslHandshakeRequestData().setMechanism("OAUTHBEARER")),
                    new SaslHandshakeResponseData().setMechanisms(List.of("OAUTHBEARER")));
            RequestOutcome refused = audit.harness.request(new SaslAuthenticateRequestData().setAuthBytes(("n,,\u0001auth=Bearer " + token + "\u0001\u0001").getBytes()));
            // A message that echoes the token (no JwtAuth message does; a broker's or another authenticator's might).
            audit.harness.response(refused, new SaslAuthenticateResponseData().setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code())
                    .setErrorMessage("Authentication failed: the token " + token + " expired; auth=Bearer " + token));

            RequestOutcome accepted = audit.harness.request(new SaslAuthenticateRequestData().setAuthBytes(token.getBytes()));
            audit.harness.context().authenticated(new AuthenticatedPrincipal("alice", "OAUTHBEARER", Map.of()));
            audit.harness.response(accepted, new SaslAuthenticateResponseData().setSessionLifetimeMs(600_000));
            // KIP-368: the same connection re-authenticates.
            audit.harness.response(audit.harness.request(new SaslAuthenticateRequestData()), new SaslAuthenticateResponseData().setSessionLifetimeMs(300_000));
            audit.harness.closeConnection();

            audit.awaitEvents(6);
            String t = "2026-12-01T09:30:00.000Z";
            assertThat(audit.written().split("\n")).containsExactly(
                    line("connection.opened", t, null, ""),
                    line("authentication.failed", t, null, ",\"mechanism\":\"PLAIN\",\"error\":\"UNSUPPORTED_SASL_MECHANISM\",\"reason\":\""
                            + Errors.UNSUPPORTED_SASL_MECHANISM.message() + " Enabled: OAUTHBEARER.\""),
                    line("authentication.failed", t, null, ",\"mechanism\":\"OAUTHBEARER\",\"error\":\"SASL_AUTHENTICATION_FAILED\","
                            + "\"reason\":\"Authentication failed: the token [redacted] expired; auth=Bearer [redacted]\""),
                    line("authentication.succeeded", t, "alice", ",\"mechanism\":\"OAUTHBEARER\",\"reauthentication\":false,\"sessionLifetimeMs\":600000"),
                    line("authentication.succeeded", t, "alice", ",\"mechanism\":\"OAUTHBEARER\",\"reauthentication\":true,\"sessionLifetimeMs\":300000"),
                    line("connection.closed", t, "alice", ",\"bytesFromClient\":0,\"bytesToClient\":0,\"durationMs\":0"));
            assertThat(audit.written()).doesNotContain(token).doesNotContain("c2lnbmF0dXJl");
        }
    }

    @Test
    void deniedResourcesOfAResponseAreOneDenialEventNamingEachTopicByNameOrId() {
        Uuid id = Uuid.randomUuid();
        Uuid known = Uuid.randomUuid();
        try (AuditHarness audit = opened()) {
            audit.harness.clusterTopic(known, "ledger");
            audit.harness.context().authenticated(new AuthenticatedPrincipal("bob", "OAUTHBEARER", Map.of()));
            ProduceResponseData produce = new ProduceResponseData();
            produce.responses().add(new ProduceResponseData.TopicProduceResponse().setName("orders").setPartitionResponses(List.of(
                    new ProduceResponseData.PartitionProduceResponse().setIndex(0).setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                            .setErrorMessage("not permitted"),
                    new ProduceResponseData.PartitionProduceResponse().setIndex(1).setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                            .setErrorMessage("not permitted"))));
            produce.responses().add(new ProduceResponseData.TopicProduceResponse().setTopicId(id).setPartitionResponses(List.of(
                    new ProduceResponseData.PartitionProduceResponse().setIndex(0).setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()))));
            produce.responses().add(new ProduceResponseData.TopicProduceResponse().setTopicId(known).setPartitionResponses(List.of(
                    new ProduceResponseData.PartitionProduceResponse().setIndex(0).setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()))));
            produce.responses().add(new ProduceResponseData.TopicProduceResponse().setName("fine").setPartitionResponses(List.of(
                    new ProduceResponseData.PartitionProduceResponse().setIndex(0))));
            audit.harness.response(produce);

            MetadataResponseData metadata = new MetadataResponseData();
            metadata.topics().add(new MetadataResponseData.MetadataResponseTopic().setName("secret").setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
            metadata.topics().add(new MetadataResponseData.MetadataResponseTopic().setName("hidden").setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
            audit.harness.response(metadata);

            // A group API's response does not name its group: the request does.
            RequestOutcome join = audit.harness.request(new JoinGroupRequestData().setGroupId("not-mine").setProtocolType("consumer"));
            audit.harness.response(join, new JoinGroupResponseData().setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()));
            // Nothing denied: no event.
            audit.harness.response(new MetadataResponseData());
            audit.harness.closeConnection();

            List<com.fasterxml.jackson.databind.JsonNode> events = audit.awaitEvents(6);
            assertThat(events).extracting(e -> e.get("type").asText()).containsExactly("connection.opened", "authentication.succeeded",
                    "authorization.denied", "authorization.denied", "authorization.denied", "connection.closed");
            assertThat(events.get(2).toString()).endsWith(",\"principal\":\"bob\",\"api\":\"Produce\",\"resources\":["
                    + "{\"type\":\"topic\",\"name\":\"orders\",\"error\":\"TOPIC_AUTHORIZATION_FAILED\",\"message\":\"not permitted\"},"
                    // By id only: named as the connection knows it, or left as the id the cluster does not know.
                    + "{\"type\":\"topic\",\"name\":\"" + id + "\",\"error\":\"TOPIC_AUTHORIZATION_FAILED\"},"
                    + "{\"type\":\"topic\",\"name\":\"ledger\",\"error\":\"TOPIC_AUTHORIZATION_FAILED\"}]}");
            assertThat(events.get(3).toString()).endsWith(",\"api\":\"Metadata\",\"resources\":[{\"type\":\"topic\",\"name\":\"secret\",\"error\":\"TOPIC_AUTHORIZATION_FAILED\"}]}");
            assertThat(events.get(4).toString()).endsWith(",\"api\":\"JoinGroup\",\"resources\":[{\"type\":\"group\",\"name\":\"not-mine\",\"error\":\"GROUP_AUTHORIZATION_FAILED\"}]}");
        }
    }

    @Test
    void fetchResponsesAreObservedOnlyWhenTheProxyDecodesThemAnyway() {
        try (AuditHarness audit = opened()) {
            AuditFilter filter = new AuditFilter(null);
            short fetch = ApiKeys.FETCH.latestVersion();
            assertThat(filter.shouldHandleResponse(ApiKeys.FETCH, fetch)).isTrue();
            assertThat(filter.requiresDecodedResponse(ApiKeys.FETCH, fetch)).as("never the reason a Fetch response is decoded").isFalse();
            assertThat(filter.requiresDecodedResponse(ApiKeys.SHARE_FETCH, ApiKeys.SHARE_FETCH.latestVersion())).isFalse();
            assertThat(filter.requiresDecodedResponse(ApiKeys.PRODUCE, ApiKeys.PRODUCE.latestVersion())).isTrue();
            assertThat(filter.shouldHandleRequest(ApiKeys.PRODUCE, ApiKeys.PRODUCE.latestVersion())).as("records are never read").isFalse();
            assertThat(filter.shouldHandleRequest(ApiKeys.FETCH, fetch)).isFalse();

            // Decoded for another filter (JwtAuth checking what a principal may read): a denial in it is seen.
            FetchResponseData response = new FetchResponseData();
            response.responses().add(new FetchResponseData.FetchableTopicResponse().setTopic("payroll").setPartitions(List.of(
                    new FetchResponseData.PartitionData().setPartitionIndex(0).setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()))));
            audit.harness.response((short) 12, response);
            assertThat(audit.awaitEvents(2).get(1).toString())
                    .endsWith(",\"api\":\"Fetch\",\"resources\":[{\"type\":\"topic\",\"name\":\"payroll\",\"error\":\"TOPIC_AUTHORIZATION_FAILED\"}]}");
        }
    }
}
