package io.sluice.filter.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.sluice.proxy.filter.harness.FilterHarness;
import io.sluice.proxy.filter.harness.RequestOutcome;
import io.sluice.proxy.filter.harness.SentRequest;
import io.sluice.proxy.filter.harness.Verdict;

import static io.sluice.filter.policy.PolicyHarness.as;
import static io.sluice.filter.policy.PolicyHarness.harness;
import static io.sluice.filter.policy.PolicyHarness.violations;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every topic policy through the harness on CreateTopics (refused with POLICY_VIOLATION and a message naming it,
 * allowed, warn mode), then what the broker's defaults add (the validateOnly probe), CreatePartitions, and both
 * config-changing APIs with the DescribeConfigs that tells what a reset key falls back to.
 */
class TopicPoliciesTest {

    private static final byte TOPIC = ConfigResource.Type.TOPIC.id();

    /**
     * @param topics   the rule's {@code topics:} section, YAML flow mapping
     * @param breaking a topic that breaks the policy (name, partitions, replication factor, configs)
     * @param within   one within it
     */
    record Case(String policy, String topics, CreateTopicsRequestData.CreatableTopic breaking, CreateTopicsRequestData.CreatableTopic within,
                Errors error, String message) {
        @Override
        public String toString() {
            return policy;
        }
    }

    static CreateTopicsRequestData.CreatableTopic topic(String name, int partitions, int replicationFactor, String... configs) {
        CreateTopicsRequestData.CreatableTopic topic = new CreateTopicsRequestData.CreatableTopic().setName(name).setNumPartitions(partitions)
                .setReplicationFactor((short) replicationFactor);
        for (int i = 0; i < configs.length; i += 2) {
            topic.configs().add(new CreateTopicsRequestData.CreatableTopicConfig().setName(configs[i]).setValue(configs[i + 1]));
        }
        return topic;
    }

    static CreateTopicsRequestData create(CreateTopicsRequestData.CreatableTopic... topics) {
        CreateTopicsRequestData request = new CreateTopicsRequestData().setTimeoutMs(30_000);
        for (CreateTopicsRequestData.CreatableTopic t : topics) {
            request.topics().add(t.duplicate());
        }
        return request;
    }

    static Stream<Case> cases() {
        return Stream.of(
                new Case("topics.names", "{names: [\"$(principal).*\", shared-logs]}", topic("bob.orders", 3, 3), topic("alice.orders", 3, 3),
                        Errors.POLICY_VIOLATION, "policy topics.names (rule tenants): topic 'bob.orders' is not a name this principal may use "
                        + "(alice.*, shared-logs)"),
                new Case("topics.partitions", "{partitions: {min: 2, max: 12}}", topic("alice.orders", 100, 3), topic("alice.orders", 12, 3),
                        Errors.POLICY_VIOLATION, "policy topics.partitions (rule tenants): topic 'alice.orders' would have 100 partitions, more than the 12 "
                        + "allowed"),
                new Case("topics.minReplicationFactor", "{minReplicationFactor: 3}", topic("alice.orders", 3, 1), topic("alice.orders", 3, 3),
                        Errors.POLICY_VIOLATION, "policy topics.minReplicationFactor (rule tenants): topic 'alice.orders' would have replication factor 1, "
                        + "less than the 3 required"),
                new Case("topics.minInsyncReplicas", "{minInsyncReplicas: 2}", topic("alice.orders", 3, 3, "min.insync.replicas", "1"),
                        topic("alice.orders", 3, 3, "min.insync.replicas", "2"), Errors.POLICY_VIOLATION,
                        "policy topics.minInsyncReplicas (rule tenants): topic 'alice.orders' would have min.insync.replicas=1, less than the 2 required"),
                new Case("topics.allowedConfigs", "{allowedConfigs: [retention.ms, \"cleanup.*\"]}", topic("alice.orders", 3, 3, "segment.bytes", "1024"),
                        topic("alice.orders", 3, 3, "cleanup.policy", "compact"), Errors.POLICY_VIOLATION,
                        "policy topics.allowedConfigs (rule tenants): topic 'alice.orders': config 'segment.bytes' may not be set (allowed: retention.ms, "
                        + "cleanup.*)"),
                new Case("topics.forbiddenConfigs", "{forbiddenConfigs: [\"unclean.*\"]}",
                        topic("alice.orders", 3, 3, "unclean.leader.election.enable", "true"), topic("alice.orders", 3, 3, "retention.ms", "1"),
                        Errors.POLICY_VIOLATION, "policy topics.forbiddenConfigs (rule tenants): topic 'alice.orders': config "
                        + "'unclean.leader.election.enable' may not be set (forbidden: unclean.*)"),
                new Case("topics.configs", "{configs: {retention.ms: {max: 604800000}}}", topic("alice.orders", 3, 3, "retention.ms", "-1"),
                        topic("alice.orders", 3, 3, "retention.ms", "86400000"), Errors.POLICY_VIOLATION,
                        "policy topics.configs (rule tenants): topic 'alice.orders': retention.ms=-1 (unlimited) is more than the 604800000 allowed"),
                new Case("topics.configs", "{configs: {cleanup.policy: {allowed: [delete, compact]}}}",
                        topic("alice.orders", 3, 3, "cleanup.policy", "compact,tiered"), topic("alice.orders", 3, 3, "cleanup.policy", "compact, delete"),
                        Errors.POLICY_VIOLATION, "policy topics.configs (rule tenants): topic 'alice.orders': cleanup.policy='compact,tiered' is not allowed "
                        + "(allowed: compact, delete)"),
                new Case("topics.configs", "{configs: {retention.ms: {min: 60000}}}", topic("alice.orders", 3, 3, "retention.ms", "a week"),
                        topic("alice.orders", 3, 3, "retention.ms", "60000"), Errors.INVALID_CONFIG,
                        "policy topics.configs (rule tenants): topic 'alice.orders': retention.ms='a week' is not a whole number"));
    }

    private static FilterHarness alice(String topics, String mode) {
        return as("alice", harness("""
                rules:
                  - name: tenants
                    principals: [alice, bob]
                    mode: %s
                    topics: %s
                """.formatted(mode, topics)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aTopicBreakingThePolicyIsRefusedWithAMessageNamingItAndNeverReachesTheBroker(Case c) {
        try (FilterHarness harness = alice(c.topics(), "enforce")) {
            RequestOutcome outcome = harness.request(create(c.breaking()));

            CreateTopicsResponseData.CreatableTopicResult result = ((CreateTopicsResponseData) outcome.answer()).topics().find(c.breaking().name());
            assertThat(Errors.forCode(result.errorCode())).isEqualTo(c.error());
            assertThat(result.errorMessage()).isEqualTo(c.message());
            assertThat(harness.sentRequests()).isEmpty();
            assertThat(violations(harness, c.policy(), "enforce")).isEqualTo(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aTopicWithinThePolicyIsForwardedUnchanged(Case c) {
        try (FilterHarness harness = alice(c.topics(), "enforce")) {
            CreateTopicsRequestData request = create(c.within());
            RequestOutcome outcome = harness.request(request.duplicate());

            assertThat(outcome.forwarded()).isEqualTo(request);
            assertThat(harness.sentRequests()).isEmpty();
            assertThat(violations(harness, c.policy(), "enforce") + violations(harness, c.policy(), "warn")).isZero();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void inWarnModeTheBreakingTopicIsForwardedUnchangedAndCounted(Case c) {
        try (FilterHarness harness = alice(c.topics(), "warn")) {
            CreateTopicsRequestData request = create(c.breaking());
            RequestOutcome outcome = harness.request(request.duplicate());

            assertThat(outcome.forwarded()).isEqualTo(request);
            assertThat(violations(harness, c.policy(), "warn")).isEqualTo(1);
            assertThat(violations(harness, c.policy(), "enforce")).isZero();
        }
    }

    @Test
    void aRefusedTopicIsAnsweredBesideTheBrokersAnswerForTheOthersAndValidateOnlyIsJudgedAlike() {
        try (FilterHarness harness = alice("{partitions: {max: 12}}", "enforce")) {
            RequestOutcome outcome = harness.request(create(topic("alice.big", 100, 3), topic("alice.small", 3, 3)).setValidateOnly(true));

            CreateTopicsRequestData forwarded = (CreateTopicsRequestData) outcome.forwarded();
            assertThat(forwarded.validateOnly()).isTrue();
            assertThat(forwarded.topics()).extracting(CreateTopicsRequestData.CreatableTopic::name).containsExactly("alice.small");
            CreateTopicsResponseData broker = new CreateTopicsResponseData();
            broker.topics().add(new CreateTopicsResponseData.CreatableTopicResult().setName("alice.small").setNumPartitions(3).setReplicationFactor((short) 3));
            CreateTopicsResponseData merged = (CreateTopicsResponseData) harness.response(outcome, broker).forwarded();
            assertThat(merged.topics().find("alice.small").errorCode()).isZero();
            assertThat(merged.topics().find("alice.big").errorCode()).isEqualTo(Errors.POLICY_VIOLATION.code());
            assertThat(merged.topics().find("alice.big").errorMessage()).contains("100 partitions, more than the 12 allowed");
        }
    }

    @Test
    void aTopicNameAsLongAsTheProtocolAllowsIsQuotedCutAndEscapedInTheAnswer() {
        // 32,767 characters (the most a Kafka string holds) with a line break: a message quoting it whole could not be
        // written back as a Kafka string, and would forge a log line.
        String hostile = "bob.\n" + "x".repeat(Short.MAX_VALUE - 5);
        try (FilterHarness harness = alice("{names: [\"$(principal).*\"]}", "enforce")) {
            RequestOutcome outcome = harness.request(create(topic(hostile, 1, 1)));

            String message = ((CreateTopicsResponseData) outcome.answer()).topics().iterator().next().errorMessage();
            assertThat(message).startsWith("policy topics.names (rule tenants): topic 'bob.\\u000axxx").contains("more chars)").doesNotContain("\n");
            assertThat(message.length()).isLessThan(400);
        }
    }

    @Test
    void whatARequestLeavesToTheBrokerIsJudgedAtTheBrokersDefaultsFromAValidateOnlyProbe() {
        try (FilterHarness harness = alice("{partitions: {max: 12}, minReplicationFactor: 3, minInsyncReplicas: 2}", "enforce")) {
            RequestOutcome outcome = harness.request(create(topic("alice.defaults", -1, -1), topic("alice.given", 3, 3, "min.insync.replicas", "2")));

            assertThat(outcome.verdict()).isEqualTo(Verdict.PENDING);
            SentRequest probe = harness.sentRequests().get(0);
            CreateTopicsRequestData asked = (CreateTopicsRequestData) probe.request();
            assertThat(asked.validateOnly()).isTrue();
            assertThat(asked.topics()).extracting(CreateTopicsRequestData.CreatableTopic::name).containsExactly("alice.defaults");
            assertThat(probe.header().requestApiVersion()).isGreaterThanOrEqualTo(TopicCreation.PROBE_MIN_VERSION);
            probe.answer(probeAnswer("alice.defaults", 6, 1, "1"));

            CreateTopicsRequestData forwarded = (CreateTopicsRequestData) outcome.forwarded();
            assertThat(forwarded.topics()).extracting(CreateTopicsRequestData.CreatableTopic::name).containsExactly("alice.given");
            CreateTopicsResponseData merged = (CreateTopicsResponseData) harness.response(outcome, new CreateTopicsResponseData()).forwarded();
            assertThat(merged.topics().find("alice.defaults").errorMessage()).isEqualTo("policy topics.minReplicationFactor (rule tenants): topic "
                    + "'alice.defaults' would have replication factor 1 (the broker's default), less than the 3 required");
        }
    }

    @Test
    void defaultsWithinThePolicyPassAndTheBrokersOwnRefusalInTheProbeIsItsAnswer() {
        try (FilterHarness harness = alice("{partitions: {max: 12}, minInsyncReplicas: 2}", "enforce")) {
            RequestOutcome allowed = harness.request(create(topic("alice.ok", -1, 3)));
            harness.sentRequests().get(0).answer(probeAnswer("alice.ok", 6, 3, "2"));
            assertThat(((CreateTopicsRequestData) allowed.forwarded()).topics()).hasSize(1);

            RequestOutcome exists = harness.request(create(topic("alice.there", -1, 3)));
            CreateTopicsResponseData already = new CreateTopicsResponseData();
            already.topics().add(new CreateTopicsResponseData.CreatableTopicResult().setName("alice.there")
                    .setErrorCode(Errors.TOPIC_ALREADY_EXISTS.code()).setErrorMessage("Topic 'alice.there' already exists."));
            harness.sentRequests().get(1).answer(already);
            CreateTopicsResponseData.CreatableTopicResult answer = ((CreateTopicsResponseData) exists.answer()).topics().find("alice.there");
            assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.TOPIC_ALREADY_EXISTS);
            assertThat(answer.errorMessage()).isEqualTo("Topic 'alice.there' already exists.");

            RequestOutcome hidden = harness.request(create(topic("alice.hidden", -1, 3)));
            CreateTopicsResponseData undescribed = new CreateTopicsResponseData();
            undescribed.topics().add(new CreateTopicsResponseData.CreatableTopicResult().setName("alice.hidden")
                    .setTopicConfigErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
            harness.sentRequests().get(2).answer(undescribed);
            assertThat(((CreateTopicsResponseData) hidden.answer()).topics().find("alice.hidden").errorMessage())
                    .startsWith("policy topics.partitions (rule tenants): topic 'alice.hidden' leaves numPartitions to the broker, which did not say");

            RequestOutcome lost = harness.request(create(topic("alice.lost", -1, 3)));
            harness.sentRequests().get(3).fail(new NetworkException("connection to the broker lost"));
            CreateTopicsResponseData.CreatableTopicResult failed = ((CreateTopicsResponseData) lost.answer()).topics().find("alice.lost");
            assertThat(Errors.forCode(failed.errorCode())).isEqualTo(Errors.NETWORK_EXCEPTION);
            assertThat(failed.errorMessage()).contains("could not learn the broker's defaults").contains("connection to the broker lost");
        }
    }

    private static CreateTopicsResponseData probeAnswer(String name, int partitions, int replicationFactor, String minInsync) {
        CreateTopicsResponseData answer = new CreateTopicsResponseData();
        CreateTopicsResponseData.CreatableTopicResult result = new CreateTopicsResponseData.CreatableTopicResult().setName(name)
                .setNumPartitions(partitions).setReplicationFactor((short) replicationFactor);
        result.configs().add(new CreateTopicsResponseData.CreatableTopicConfigs().setName("min.insync.replicas").setValue(minInsync)
                .setConfigSource(DescribeConfigsResponse.ConfigSource.DEFAULT_CONFIG.id()));
        result.configs().add(new CreateTopicsResponseData.CreatableTopicConfigs().setName("retention.ms").setValue("604800000"));
        answer.topics().add(result);
        return answer;
    }

    @Test
    void createPartitionsIsHeldToTheMaximumAndTheNames() {
        try (FilterHarness harness = alice("{names: [\"$(principal).*\"], partitions: {min: 3, max: 12}}", "enforce")) {
            CreatePartitionsRequestData request = new CreatePartitionsRequestData().setTimeoutMs(30_000);
            request.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("alice.grow").setCount(24));
            request.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("bob.grow").setCount(4));
            // Below the minimum, a topic made before the policy may still grow towards it.
            request.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("alice.small").setCount(2));
            RequestOutcome outcome = harness.request(request);

            assertThat(((CreatePartitionsRequestData) outcome.forwarded()).topics()).extracting(t -> t.name()).containsExactly("alice.small");
            CreatePartitionsResponseData merged = (CreatePartitionsResponseData) harness.response(outcome, new CreatePartitionsResponseData()).forwarded();
            assertThat(merged.results()).extracting(r -> r.name() + ": " + r.errorMessage()).containsExactly(
                    "alice.grow: policy topics.partitions (rule tenants): topic 'alice.grow' would have 24 partitions, more than the 12 allowed",
                    "bob.grow: policy topics.names (rule tenants): topic 'bob.grow' is not a name this principal may use (alice.*)");
            assertThat(merged.results()).allSatisfy(r -> assertThat(r.errorCode()).isEqualTo(Errors.POLICY_VIOLATION.code()));
        }
        try (FilterHarness harness = alice("{partitions: {max: 12}}", "warn")) {
            CreatePartitionsRequestData request = new CreatePartitionsRequestData();
            request.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("alice.grow").setCount(24));
            assertThat(harness.request(request).verdict()).isEqualTo(Verdict.FORWARDED);
            assertThat(violations(harness, "topics.partitions", "warn")).isEqualTo(1);
        }
    }

    @Test
    void incrementalAlterConfigsJudgesSetsAndAppendsAndAResetAtWhatItFallsBackTo() {
        try (FilterHarness harness = alice("{forbiddenConfigs: [\"unclean.*\"], minInsyncReplicas: 2, configs: {cleanup.policy: {allowed: [delete, compact]}}}",
                "enforce")) {
            IncrementalAlterConfigsRequestData request = new IncrementalAlterConfigsRequestData();
            request.resources().add(incremental("alice.set", AlterConfigOp.OpType.SET, "unclean.leader.election.enable", "true"));
            request.resources().add(incremental("alice.append", AlterConfigOp.OpType.APPEND, "cleanup.policy", "tiered"));
            request.resources().add(incremental("alice.reset", AlterConfigOp.OpType.DELETE, "min.insync.replicas", null));
            // Removing a forbidden key's override is allowed: it sets nothing.
            request.resources().add(incremental("alice.unforbid", AlterConfigOp.OpType.DELETE, "unclean.leader.election.enable", null));
            IncrementalAlterConfigsRequestData.AlterConfigsResource broker = new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                    .setResourceType(ConfigResource.Type.BROKER.id()).setResourceName("1");
            broker.configs().add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("unclean.leader.election.enable").setValue("true"));
            request.resources().add(broker);
            RequestOutcome outcome = harness.request(request);

            SentRequest describe = harness.sentRequests().get(0);
            DescribeConfigsRequestData asked = (DescribeConfigsRequestData) describe.request();
            assertThat(asked.includeSynonyms()).isTrue();
            assertThat(asked.resources()).singleElement().satisfies(r -> {
                assertThat(r.resourceName()).isEqualTo("alice.reset");
                assertThat(r.configurationKeys()).containsExactly("min.insync.replicas");
            });
            describe.answer(described("alice.reset", "min.insync.replicas", "3", "1"));

            IncrementalAlterConfigsRequestData forwarded = (IncrementalAlterConfigsRequestData) outcome.forwarded();
            assertThat(forwarded.resources()).extracting(r -> r.resourceName()).containsExactly("alice.unforbid", "1");
            IncrementalAlterConfigsResponseData merged = (IncrementalAlterConfigsResponseData) harness.response(outcome,
                    new IncrementalAlterConfigsResponseData()).forwarded();
            assertThat(merged.responses()).extracting(r -> r.resourceName() + ": " + r.errorMessage()).containsExactly(
                    "alice.set: policy topics.forbiddenConfigs (rule tenants): topic 'alice.set': config 'unclean.leader.election.enable' may not be set "
                            + "(forbidden: unclean.*)",
                    "alice.append: policy topics.configs (rule tenants): topic 'alice.append': cleanup.policy='tiered' is not allowed (allowed: compact, delete)",
                    "alice.reset: policy topics.minInsyncReplicas (rule tenants): topic 'alice.reset' would have min.insync.replicas=1 (the broker's default), "
                            + "less than the 2 required");
            assertThat(merged.responses()).allSatisfy(r -> assertThat(r.resourceType()).isEqualTo(TOPIC));
        }
    }

    @Test
    void legacyAlterConfigsResetsEveryJudgedKeyItLeavesOutAndAnUnknownTopicGetsTheBrokersAnswer() {
        try (FilterHarness harness = alice("{minInsyncReplicas: 2, configs: {retention.ms: {max: 604800000}}}", "enforce")) {
            AlterConfigsRequestData request = new AlterConfigsRequestData();
            request.resources().add(legacy("alice.ok", "retention.ms", "3600000"));
            request.resources().add(legacy("alice.ghost", "retention.ms", "3600000"));
            request.resources().add(legacy("alice.long", "retention.ms", "999999999999"));
            RequestOutcome outcome = harness.request(request);

            DescribeConfigsRequestData asked = (DescribeConfigsRequestData) harness.sentRequests().get(0).request();
            assertThat(asked.resources()).extracting(r -> r.resourceName() + " " + r.configurationKeys())
                    .containsExactly("alice.ok [min.insync.replicas]", "alice.ghost [min.insync.replicas]");
            DescribeConfigsResponseData answer = described("alice.ok", "min.insync.replicas", "2", "2");
            answer.results().add(new DescribeConfigsResponseData.DescribeConfigsResult().setResourceType(TOPIC).setResourceName("alice.ghost")
                    .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).setErrorMessage("The topic 'alice.ghost' does not exist."));
            harness.sentRequests().get(0).answer(answer);

            assertThat(((AlterConfigsRequestData) outcome.forwarded()).resources()).extracting(r -> r.resourceName()).containsExactly("alice.ok");
            AlterConfigsResponseData merged = (AlterConfigsResponseData) harness.response(outcome, new AlterConfigsResponseData()).forwarded();
            assertThat(merged.responses()).extracting(r -> r.resourceName() + ": " + Errors.forCode(r.errorCode()) + ": " + r.errorMessage()).containsExactly(
                    "alice.ghost: UNKNOWN_TOPIC_OR_PARTITION: The topic 'alice.ghost' does not exist.",
                    "alice.long: POLICY_VIOLATION: policy topics.configs (rule tenants): topic 'alice.long': retention.ms=999999999999 is more than the "
                            + "604800000 allowed");
        }
    }

    private static IncrementalAlterConfigsRequestData.AlterConfigsResource incremental(String topic, AlterConfigOp.OpType op, String key, String value) {
        IncrementalAlterConfigsRequestData.AlterConfigsResource resource = new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                .setResourceType(TOPIC).setResourceName(topic);
        resource.configs().add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName(key).setConfigOperation(op.id()).setValue(value));
        return resource;
    }

    private static AlterConfigsRequestData.AlterConfigsResource legacy(String topic, String key, String value) {
        AlterConfigsRequestData.AlterConfigsResource resource = new AlterConfigsRequestData.AlterConfigsResource().setResourceType(TOPIC).setResourceName(topic);
        resource.configs().add(new AlterConfigsRequestData.AlterableConfig().setName(key).setValue(value));
        return resource;
    }

    /** A DescribeConfigs answer: the topic overrides {@code key} with {@code override}; the broker's default is {@code fallback}. */
    private static DescribeConfigsResponseData described(String topic, String key, String override, String fallback) {
        DescribeConfigsResponseData.DescribeConfigsResourceResult config = new DescribeConfigsResponseData.DescribeConfigsResourceResult().setName(key)
                .setValue(override).setConfigSource(DescribeConfigsResponse.ConfigSource.TOPIC_CONFIG.id())
                .setSynonyms(new ArrayList<>(List.of(
                        new DescribeConfigsResponseData.DescribeConfigsSynonym().setName(key).setValue(override)
                                .setSource(DescribeConfigsResponse.ConfigSource.TOPIC_CONFIG.id()),
                        new DescribeConfigsResponseData.DescribeConfigsSynonym().setName(key).setValue(fallback)
                                .setSource(DescribeConfigsResponse.ConfigSource.DEFAULT_CONFIG.id()))));
        DescribeConfigsResponseData answer = new DescribeConfigsResponseData();
        answer.results().add(new DescribeConfigsResponseData.DescribeConfigsResult().setResourceType(TOPIC).setResourceName(topic)
                .setConfigs(new ArrayList<>(List.of(config))));
        return answer;
    }

    @Test
    void withoutTopicPoliciesTheAdminApisAreNotDecodedAndOtherPrincipalsPass() {
        try (FilterHarness harness = harness("""
                rules:
                  - name: tenants
                    produce: {requireKey: true}
                """)) {
            assertThat(harness.request(create(topic("x", 100, 1))).handled()).isFalse();
        }
        try (FilterHarness harness = as("carol", alice("{partitions: {max: 1}}", "enforce"))) {
            assertThat(harness.request(create(topic("x", 100, 1))).verdict()).isEqualTo(Verdict.FORWARDED);
        }
    }
}
