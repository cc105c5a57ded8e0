package io.sluice.filter.audit;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.RenewDelegationTokenRequestData;
import org.apache.kafka.common.message.RenewDelegationTokenResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.sluice.proxy.filter.AuthenticatedPrincipal;
import io.sluice.proxy.filter.harness.RequestOutcome;
import io.sluice.proxy.filter.harness.Verdict;

import static org.assertj.core.api.Assertions.assertThat;

/** Admin-class requests: one {@code admin} event each, what was asked and the outcome per resource, and no secret in it. */
class AuditAdminEventsTest {

    private static AuditHarness authenticated() {
        AuditHarness audit = new AuditHarness();
        audit.harness.context().authenticated(new AuthenticatedPrincipal("ops", "OAUTHBEARER", Map.of()));
        return audit;
    }

    /** The fields after the common ones, as JSON. */
    private static String specific(JsonNode event) {
        String json = event.toString();
        return "{" + json.substring(json.indexOf(",\"principal\":") + 1).replaceFirst("^\"principal\":(null|\"[^\"]*\"),", "");
    }

    @Test
    void createTopicsIsOneAdminEventWithWhatEachTopicAskedAndItsOutcome() {
        try (AuditHarness audit = authenticated()) {
            CreateTopicsRequestData request = new CreateTopicsRequestData().setValidateOnly(false);
            request.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("orders").setNumPartitions(3).setReplicationFactor((short) 3));
            CreateTopicsRequestData.CreatableTopic big = new CreateTopicsRequestData.CreatableTopic().setName("huge").setNumPartitions(10_000)
                    .setReplicationFactor((short) 1);
            big.configs().add(new CreateTopicsRequestData.CreatableTopicConfig().setName("retention.ms").setValue("604800000"));
            big.configs().add(new CreateTopicsRequestData.CreatableTopicConfig().setName("x.plugin.secret").setValue("hunter2"));
            request.topics().add(big);
            RequestOutcome outcome = audit.harness.request(request);
            assertThat(outcome.verdict()).as("the audit never changes a request").isEqualTo(Verdict.FORWARDED);
            assertThat(outcome.forwarded()).isSameAs(request);

            CreateTopicsResponseData response = new CreateTopicsResponseData().setThrottleTimeMs(0);
            response.topics().add(new CreateTopicsResponseData.CreatableTopicResult().setName("orders"));
            response.topics().add(new CreateTopicsResponseData.CreatableTopicResult().setName("huge").setErrorCode(Errors.POLICY_VIOLATION.code())
                    .setErrorMessage("policy topics.partitions: 10000 partitions, at most 100"));
            audit.harness.response(outcome, response);

            List<JsonNode> events = audit.awaitEvents(4);
            assertThat(events).extracting(e -> e.get("type").asText())
                    .containsExactly("connection.opened", "authentication.succeeded", "admin", "policy.refused");
            assertThat(specific(events.get(2))).isEqualTo("{\"api\":\"CreateTopics\",\"outcome\":\"partial\",\"resources\":["
                    + "{\"type\":\"topic\",\"name\":\"orders\",\"details\":{\"partitions\":3,\"replicationFactor\":3},\"error\":\"NONE\"},"
                    + "{\"type\":\"topic\",\"name\":\"huge\",\"details\":{\"partitions\":10000,\"replicationFactor\":1,\"configs\":["
                    + "{\"name\":\"retention.ms\",\"value\":\"604800000\"},{\"name\":\"x.plugin.secret\",\"value\":\"[redacted]\"}]},"
                    + "\"error\":\"POLICY_VIOLATION\",\"message\":\"policy topics.partitions: 10000 partitions, at most 100\"}],"
                    + "\"throttleTimeMs\":0}");
            assertThat(specific(events.get(3))).isEqualTo("{\"api\":\"CreateTopics\",\"policy\":\"topics.partitions\",\"resources\":["
                    + "{\"type\":\"topic\",\"name\":\"huge\",\"error\":\"POLICY_VIOLATION\",\"message\":\"policy topics.partitions: 10000 partitions, at most 100\"}]}");
            assertThat(events.get(2).get("principal").asText()).isEqualTo("ops");
            assertThat(audit.written()).doesNotContain("hunter2");
        }
    }

    @Test
    void configValuesAppearOnlyWhereTheyCannotBeSecretsAndAclsAndScramAndTokenRequestsShowNoSecret() {
        byte[] salt = "SALT-never-audited".getBytes(StandardCharsets.UTF_8);
        byte[] saltedPassword = "SALTED-PASSWORD-never-audited".getBytes(StandardCharsets.UTF_8);
        byte[] hmac = "HMAC-never-audited".getBytes(StandardCharsets.UTF_8);
        try (AuditHarness audit = authenticated()) {
            AlterConfigsRequestData alter = new AlterConfigsRequestData();
            AlterConfigsRequestData.AlterConfigsResource broker = new AlterConfigsRequestData.AlterConfigsResource()
                    .setResourceType(ConfigResource.Type.BROKER.id()).setResourceName("0");
            broker.configs().add(new AlterConfigsRequestData.AlterableConfig().setName("listener.name.internal.ssl.key.password").setValue("p4ssw0rd-1"));
            broker.configs().add(new AlterConfigsRequestData.AlterableConfig().setName("log.retention.ms").setValue("p4ssw0rd-2"));
            alter.resources().add(broker);
            audit.harness.response(audit.harness.request(alter), new AlterConfigsResponseData().setResponses(List.of(
                    new AlterConfigsResponseData.AlterConfigsResourceResponse().setResourceType(ConfigResource.Type.BROKER.id()).setResourceName("0")
                            .setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code()))));

            IncrementalAlterConfigsRequestData incremental = new IncrementalAlterConfigsRequestData();
            IncrementalAlterConfigsRequestData.AlterConfigsResource topic = new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                    .setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName("orders");
            topic.configs().add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("cleanup.policy").setConfigOperation((byte) 0).setValue("compact"));
            topic.configs().add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("sasl.jaas.config").setConfigOperation((byte) 0)
                    .setValue("password=\"p4ssw0rd-3\""));
            topic.configs().add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("retention.bytes").setConfigOperation((byte) 1));
            incremental.resources().add(topic);
            audit.harness.response(audit.harness.request(incremental), new IncrementalAlterConfigsResponseData().setResponses(List.of(
                    new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse().setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName("orders"))));

            CreateAclsRequestData acls = new CreateAclsRequestData().setCreations(List.of(
                    new CreateAclsRequestData.AclCreation().setResourceType((byte) 2).setResourceName("orders").setResourcePatternType((byte) 3)
                            .setPrincipal("User:alice").setHost("*").setOperation((byte) 3).setPermissionType((byte) 3),
                    new CreateAclsRequestData.AclCreation().setResourceType((byte) 3).setResourceName("app-").setResourcePatternType((byte) 4)
                            .setPrincipal("User:bob").setHost("*").setOperation((byte) 3).setPermissionType((byte) 2)));
            audit.harness.response(audit.harness.request(acls), new CreateAclsResponseData().setResults(List.of(
                    new CreateAclsResponseData.AclCreationResult(),
                    new CreateAclsResponseData.AclCreationResult().setErrorCode(Errors.SECURITY_DISABLED.code()).setErrorMessage("no authorizer"))));

            AlterUserScramCredentialsRequestData scram = new AlterUserScramCredentialsRequestData().setUpsertions(List.of(
                    new AlterUserScramCredentialsRequestData.ScramCredentialUpsertion().setName("carol").setMechanism((byte) 2).setIterations(8192)
                            .setSalt(salt).setSaltedPassword(saltedPassword)));
            audit.harness.response(audit.harness.request(scram), new AlterUserScramCredentialsResponseData().setResults(List.of(
                    new AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult().setUser("carol"))));

            audit.harness.response(audit.harness.request(new RenewDelegationTokenRequestData().setHmac(hmac).setRenewPeriodMs(3_600_000)),
                    new RenewDelegationTokenResponseData().setErrorCode(Errors.DELEGATION_TOKEN_AUTHORIZATION_FAILED.code()));

            List<JsonNode> events = audit.awaitEvents(9);
            assertThat(events).extracting(e -> e.get("type").asText()).containsExactly("connection.opened", "authentication.succeeded",
                    "admin", "authorization.denied", "admin", "admin", "admin", "admin", "authorization.denied");
            assertThat(specific(events.get(2))).isEqualTo("{\"api\":\"AlterConfigs\",\"outcome\":\"failed\",\"resources\":["
                    + "{\"type\":\"broker\",\"name\":\"0\",\"details\":{\"configs\":[{\"name\":\"listener.name.internal.ssl.key.password\",\"value\":\"[redacted]\"},"
                    + "{\"name\":\"log.retention.ms\",\"value\":\"[redacted]\"}]},\"error\":\"CLUSTER_AUTHORIZATION_FAILED\"}],\"throttleTimeMs\":0}");
            assertThat(specific(events.get(4))).isEqualTo("{\"api\":\"IncrementalAlterConfigs\",\"outcome\":\"succeeded\",\"resources\":["
                    + "{\"type\":\"topic\",\"name\":\"orders\",\"details\":{\"configs\":[{\"name\":\"cleanup.policy\",\"op\":\"SET\",\"value\":\"compact\"},"
                    + "{\"name\":\"sasl.jaas.config\",\"op\":\"SET\",\"value\":\"[redacted]\"},{\"name\":\"retention.bytes\",\"op\":\"DELETE\",\"value\":null}]},"
                    + "\"error\":\"NONE\"}],\"throttleTimeMs\":0}");
            assertThat(specific(events.get(5))).isEqualTo("{\"api\":\"CreateAcls\",\"outcome\":\"partial\",\"resources\":["
                    + "{\"type\":\"acl\",\"name\":\"TOPIC:LITERAL:orders\",\"details\":{\"principal\":\"User:alice\",\"host\":\"*\",\"operation\":\"READ\",\"permission\":\"ALLOW\"},\"error\":\"NONE\"},"
                    + "{\"type\":\"acl\",\"name\":\"GROUP:PREFIXED:app-\",\"details\":{\"principal\":\"User:bob\",\"host\":\"*\",\"operation\":\"READ\",\"permission\":\"DENY\"},"
                    + "\"error\":\"SECURITY_DISABLED\",\"message\":\"no authorizer\"}],\"throttleTimeMs\":0}");
            assertThat(specific(events.get(6))).isEqualTo("{\"api\":\"AlterUserScramCredentials\",\"outcome\":\"succeeded\",\"resources\":["
                    + "{\"type\":\"user\",\"name\":\"carol\",\"details\":{\"action\":\"upsert\",\"mechanism\":\"SCRAM-SHA-512\",\"iterations\":8192},\"error\":\"NONE\"}],"
                    + "\"throttleTimeMs\":0}");
            assertThat(specific(events.get(7))).isEqualTo("{\"api\":\"RenewDelegationToken\",\"outcome\":\"failed\",\"resources\":["
                    + "{\"type\":\"delegationToken\",\"name\":null,\"details\":{\"renewPeriodMs\":3600000},\"error\":\"DELEGATION_TOKEN_AUTHORIZATION_FAILED\"}],"
                    + "\"throttleTimeMs\":0}");
            assertThat(audit.written()).doesNotContain("p4ssw0rd").doesNotContain("never-audited")
                    .doesNotContain(java.util.Base64.getEncoder().encodeToString(salt)).doesNotContain(java.util.Base64.getEncoder().encodeToString(hmac));
        }
    }

    @Test
    void offsetsSetOutsideGroupMembershipAreAdminEventsAndAMembersCommitIsNot() {
        try (AuditHarness audit = authenticated()) {
            OffsetCommitRequestData member = new OffsetCommitRequestData().setGroupId("app").setGenerationIdOrMemberEpoch(7).setMemberId("m-1");
            member.topics().add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("orders").setPartitions(List.of(
                    new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(0).setCommittedOffset(10))));
            audit.harness.response(audit.harness.request((short) 9, member), new OffsetCommitResponseData());

            OffsetCommitRequestData reset = new OffsetCommitRequestData().setGroupId("app").setGenerationIdOrMemberEpoch(-1).setMemberId("");
            reset.topics().add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("orders").setPartitions(List.of(
                    new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(0).setCommittedOffset(0),
                    new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(1).setCommittedOffset(5))));
            OffsetCommitResponseData response = new OffsetCommitResponseData();
            response.topics().add(new OffsetCommitResponseData.OffsetCommitResponseTopic().setName("orders").setPartitions(List.of(
                    new OffsetCommitResponseData.OffsetCommitResponsePartition().setPartitionIndex(0),
                    new OffsetCommitResponseData.OffsetCommitResponsePartition().setPartitionIndex(1))));
            audit.harness.response(audit.harness.request((short) 9, reset), response);

            List<JsonNode> events = audit.awaitEvents(3);
            assertThat(events).extracting(e -> e.get("type").asText()).containsExactly("connection.opened", "authentication.succeeded", "admin");
            assertThat(specific(events.get(2))).isEqualTo("{\"api\":\"OffsetCommit\",\"outcome\":\"succeeded\",\"resources\":["
                    + "{\"type\":\"group\",\"name\":\"app\",\"error\":\"NONE\"},"
                    + "{\"type\":\"topic\",\"name\":\"orders\",\"details\":{\"offsets\":{\"0\":0,\"1\":5},\"partitions\":2},\"error\":\"NONE\"}],\"throttleTimeMs\":0}");
        }
    }

    @Test
    void anAdminRequestWhoseAnswerNeverCameIsReportedUnansweredWhenTheConnectionCloses() {
        try (AuditHarness audit = authenticated()) {
            DeleteTopicsRequestData answered = new DeleteTopicsRequestData().setTopicNames(List.of("old"));
            RequestOutcome first = audit.harness.request((short) 5, answered);
            audit.harness.request((short) 5, new DeleteTopicsRequestData().setTopicNames(List.of("orders", "payments")));
            audit.harness.response(first, new DeleteTopicsResponseData().setResponses(new DeleteTopicsResponseData.DeletableTopicResultCollection(List.of(
                    new DeleteTopicsResponseData.DeletableTopicResult().setName("old")).iterator())));
            audit.harness.closeConnection();

            List<JsonNode> events = audit.awaitEvents(5);
            assertThat(events).extracting(e -> e.get("type").asText()).containsExactly("connection.opened", "authentication.succeeded", "admin", "admin",
                    "connection.closed");
            assertThat(events.get(2).get("outcome").asText()).isEqualTo("succeeded");
            assertThat(specific(events.get(3))).isEqualTo("{\"api\":\"DeleteTopics\",\"outcome\":\"unanswered\",\"resources\":["
                    + "{\"type\":\"topic\",\"name\":\"orders\"},{\"type\":\"topic\",\"name\":\"payments\"}]}");
        }
    }
}
