package io.sluice.filter.policy;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.sluice.proxy.filter.harness.FilterHarness;
import io.sluice.proxy.filter.harness.RequestOutcome;

import static io.sluice.filter.policy.PolicyHarness.PRODUCE_VERSION;
import static io.sluice.filter.policy.PolicyHarness.TOPIC;
import static io.sluice.filter.policy.PolicyHarness.as;
import static io.sluice.filter.policy.PolicyHarness.bytes;
import static io.sluice.filter.policy.PolicyHarness.harness;
import static io.sluice.filter.policy.PolicyHarness.idempotent;
import static io.sluice.filter.policy.PolicyHarness.keyed;
import static io.sluice.filter.policy.PolicyHarness.keyless;
import static io.sluice.filter.policy.PolicyHarness.produce;
import static io.sluice.filter.policy.PolicyHarness.records;
import static io.sluice.filter.policy.PolicyHarness.violations;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every Produce policy through the harness, three ways: a request that breaks it is refused with the broker's error for
 * the fault and a message naming the policy (and the record, in {@code record_errors}, for record-level ones), nothing
 * of it forwarded; a request within it is forwarded unchanged; in warn mode the breaking request is forwarded
 * unchanged and counted. Then what they share: a refused partition beside an allowed one, acks=0, principals, unread
 * records, and not decoding Produce at all when no rule polices it.
 */
class ProducePoliciesTest {

    private static final long HOUR = 3_600_000L;

    /**
     * @param produce  the rule's {@code produce:} section, one line of YAML flow mapping
     * @param breaking a request that breaks the policy
     * @param within   the same request, within the policy
     * @param record   the record named in record_errors, or -1
     */
    record Case(String policy, String produce, Supplier<ProduceRequestData> breaking, Supplier<ProduceRequestData> within, Errors error,
                String message, int record) {
        @Override
        public String toString() {
            return policy;
        }
    }

    static Stream<Case> cases() {
        MemoryRecords tenRecords = records(PolicyHarness.keyedRecords(10).toArray(SimpleRecord[]::new));
        long now = System.currentTimeMillis();
        // Both records of the maxRecordBytes case carry one timestamp: a record's size holds its timestamp's delta from
        // the batch's first, a varint whose length would otherwise depend on how long apart they were made.
        SimpleRecord big = new SimpleRecord(now, bytes("big"), new byte[300]);
        Header[] traced = { new RecordHeader("trace-id", bytes("t-1")) };
        return Stream.of(
                new Case("produce.requiredAcks", "{requiredAcks: all}",
                        () -> produce((short) 1, records(keyed("a"))), () -> produce((short) -1, records(keyed("a"))), Errors.INVALID_REQUIRED_ACKS,
                        "policy produce.requiredAcks (rule tenants): acks=1 is not allowed: produce with acks=all (-1)", -1),
                new Case("produce.compressionTypes", "{compressionTypes: [zstd, lz4]}",
                        () -> produce((short) -1, MemoryRecords.withRecords(Compression.gzip().build(), keyed("a"))),
                        () -> produce((short) -1, MemoryRecords.withRecords(Compression.zstd().build(), keyed("a"))), Errors.UNSUPPORTED_COMPRESSION_TYPE,
                        "policy produce.compressionTypes (rule tenants): a batch compressed with gzip is not allowed: use lz4 or zstd", -1),
                new Case("produce.idempotence", "{idempotence: true}",
                        () -> produce((short) -1, records(keyed("a"))), () -> produce((short) -1, idempotent(keyed("a"))), Errors.POLICY_VIOLATION,
                        "policy produce.idempotence (rule tenants): records must come from an idempotent producer (enable.idempotence=true), "
                                + "and this batch has no producer id", -1),
                new Case("produce.maxBatchBytes", "{maxBatchBytes: 200}",
                        () -> produce((short) -1, tenRecords), () -> produce((short) -1, records(keyed("a"))), Errors.MESSAGE_TOO_LARGE,
                        "policy produce.maxBatchBytes (rule tenants): a batch of " + tenRecords.sizeInBytes() + " bytes is larger than the 200 allowed "
                                + "(maxBatchBytes)", -1),
                new Case("produce.maxRecordBytes", "{maxRecordBytes: 100}",
                        () -> produce((short) -1, records(new SimpleRecord(now, bytes("a"), bytes("value of a")), big)),
                        () -> produce((short) -1, records(keyed("a"), keyed("b"))),
                        Errors.MESSAGE_TOO_LARGE, "policy produce.maxRecordBytes (rule tenants): record 1 is 312 bytes, larger than the 100 allowed "
                                + "(maxRecordBytes)", 1),
                new Case("produce.requireKey", "{requireKey: true}",
                        () -> produce((short) -1, records(keyed("a"), keyed("b"), keyed("c"), keyless())),
                        () -> produce((short) -1, records(keyed("a"), keyed("b"))), Errors.INVALID_RECORD,
                        "policy produce.requireKey (rule tenants): record 3 has no key", 3),
                new Case("produce.requiredHeaders", "{requiredHeaders: [trace-id]}",
                        () -> produce((short) -1, records(new SimpleRecord(now, bytes("a"), bytes("v"), traced), keyed("b"))),
                        () -> produce((short) -1, records(new SimpleRecord(now, bytes("a"), bytes("v"), traced))), Errors.INVALID_RECORD,
                        "policy produce.requiredHeaders (rule tenants): record 1 has no header 'trace-id'", 1),
                new Case("produce.timestamps", "{timestamps: {maxPast: 1h, maxFuture: 5m}}",
                        () -> produce((short) -1, records(new SimpleRecord(1_000_000_000_000L, bytes("a"), bytes("v")))),
                        () -> produce((short) -1, records(new SimpleRecord(now - HOUR / 2, bytes("a"), bytes("v")))), Errors.INVALID_TIMESTAMP,
                        "policy produce.timestamps (rule tenants): record 0 has timestamp 1000000000000 (2001-09-09T01:46:40Z), more than PT1H before "
                                + "the proxy's clock", 0));
    }

    private static String rule(Case c, String mode) {
        return """
                rules:
                  - name: tenants
                    mode: %s
                    produce: %s
                """.formatted(mode, c.produce());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aRequestBreakingThePolicyIsAnsweredWithTheBrokersErrorForItAndAMessageNamingThePolicy(Case c) {
        try (FilterHarness harness = harness(rule(c, "enforce"))) {
            RequestOutcome outcome = harness.request(PRODUCE_VERSION, c.breaking().get());

            assertThat(outcome.verdict()).as("nothing of it goes to the broker").isEqualTo(io.sluice.proxy.filter.harness.Verdict.ANSWERED);
            ProduceResponseData.PartitionProduceResponse partition = partition((ProduceResponseData) outcome.answer(), 0);
            assertThat(Errors.forCode(partition.errorCode())).isEqualTo(c.error());
            // The timestamp message goes on with the proxy's clock, which moves.
            assertThat(partition.errorMessage()).startsWith(c.message());
            if (c.record() >= 0) {
                assertThat(partition.recordErrors()).singleElement().satisfies(e -> {
                    assertThat(e.batchIndex()).isEqualTo(c.record());
                    assertThat(e.batchIndexErrorMessage()).isEqualTo(partition.errorMessage());
                });
            } else {
                assertThat(partition.recordErrors()).isEmpty();
            }
            assertThat(violations(harness, c.policy(), "enforce")).isEqualTo(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aRequestWithinThePolicyIsForwardedUnchanged(Case c) {
        try (FilterHarness harness = harness(rule(c, "enforce"))) {
            ProduceRequestData request = c.within().get();
            ProduceRequestData sent = request.duplicate();
            RequestOutcome outcome = harness.request(PRODUCE_VERSION, request);

            assertThat(outcome.forwarded()).isEqualTo(sent);
            assertThat(outcome.responseHook()).isNull();
            assertThat(violations(harness, c.policy(), "enforce") + violations(harness, c.policy(), "warn")).isZero();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void inWarnModeTheBreakingRequestIsForwardedUnchangedAndCounted(Case c) {
        try (FilterHarness harness = harness(rule(c, "warn"))) {
            ProduceRequestData request = c.breaking().get();
            ProduceRequestData sent = request.duplicate();
            RequestOutcome outcome = harness.request(PRODUCE_VERSION, request);

            assertThat(outcome.forwarded()).isEqualTo(sent);
            assertThat(violations(harness, c.policy(), "warn")).isEqualTo(1);
            assertThat(violations(harness, c.policy(), "enforce")).isZero();
        }
    }

    @Test
    void aRefusedPartitionIsAnsweredBesideTheBrokersAnswerForTheOthers() {
        try (FilterHarness harness = harness("""
                rules:
                  - name: tenants
                    produce: {requireKey: true}
                """)) {
            RequestOutcome outcome = harness.request(PRODUCE_VERSION, produce((short) -1, records(keyless()), records(keyed("a"))));

            ProduceRequestData forwarded = (ProduceRequestData) outcome.forwarded();
            assertThat(forwarded.topicData()).singleElement().satisfies(t -> assertThat(t.partitionData()).extracting(p -> p.index()).containsExactly(1));
            ProduceResponseData broker = new ProduceResponseData();
            broker.responses().add(new ProduceResponseData.TopicProduceResponse().setName(TOPIC)
                    .setPartitionResponses(new java.util.ArrayList<>(List.of(new ProduceResponseData.PartitionProduceResponse().setIndex(1).setBaseOffset(7)))));
            ProduceResponseData merged = (ProduceResponseData) harness.response(outcome, broker).forwarded();
            assertThat(partition(merged, 1).errorCode()).isZero();
            assertThat(partition(merged, 1).baseOffset()).isEqualTo(7);
            assertThat(Errors.forCode(partition(merged, 0).errorCode())).isEqualTo(Errors.INVALID_RECORD);
            assertThat(partition(merged, 0).errorMessage()).isEqualTo("policy produce.requireKey (rule tenants): record 0 has no key");
        }
    }

    @Test
    void topicsNamedByIdAreAnsweredByTheirId() {
        Uuid id = Uuid.randomUuid();
        try (FilterHarness harness = harness("""
                rules:
                  - name: tenants
                    produce: {idempotence: true}
                """)) {
            ProduceRequestData request = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
            // Keyed by name and id: an entry's key is set before it joins the collection.
            request.topicData().add(new ProduceRequestData.TopicProduceData().setName("").setTopicId(id).setPartitionData(new java.util.ArrayList<>(List.of(
                    new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records(keyed("a")))))));
            RequestOutcome outcome = harness.request((short) 13, request);

            ProduceResponseData answer = (ProduceResponseData) outcome.answer();
            assertThat(answer.responses()).singleElement().satisfies(t -> {
                assertThat(t.topicId()).isEqualTo(id);
                assertThat(t.partitionResponses().get(0).errorCode()).isEqualTo(Errors.POLICY_VIOLATION.code());
            });
        }
    }

    @Test
    void anAcksZeroProduceThatBreaksTheAcksPolicyIsDroppedAndItsConnectionClosedAsABrokerClosesOne() {
        try (FilterHarness harness = harness("""
                rules:
                  - name: tenants
                    produce: {requiredAcks: 1}
                """)) {
            RequestOutcome zero = harness.request(PRODUCE_VERSION, produce((short) 0, records(keyed("a"))));
            assertThat(zero.verdict()).isEqualTo(io.sluice.proxy.filter.harness.Verdict.DROPPED);
            assertThat(zero.closesConnection()).isTrue();
            // requiredAcks 1 takes 1 and all.
            assertThat(harness.request(PRODUCE_VERSION, produce((short) 1, records(keyed("a")))).verdict())
                    .isEqualTo(io.sluice.proxy.filter.harness.Verdict.FORWARDED);
            assertThat(harness.request(PRODUCE_VERSION, produce((short) -1, records(keyed("a")))).verdict())
                    .isEqualTo(io.sluice.proxy.filter.harness.Verdict.FORWARDED);
        }
    }

    @Test
    void recordPoliciesReadCompressedBatchesAndModesComeFromThePolicyOverTheRule() {
        try (FilterHarness harness = harness("""
                rules:
                  - name: tenants
                    mode: warn
                    modes: {produce.requireKey: enforce}
                    produce: {requireKey: true, requiredHeaders: [trace-id]}
                """)) {
            MemoryRecords zstd = MemoryRecords.withRecords(Compression.zstd().build(), keyed("a"), keyless());
            RequestOutcome outcome = harness.request(PRODUCE_VERSION, produce((short) -1, zstd));

            ProduceResponseData.PartitionProduceResponse partition = partition((ProduceResponseData) outcome.answer(), 0);
            assertThat(partition.errorMessage()).isEqualTo("policy produce.requireKey (rule tenants): record 1 has no key");
            // Record 0 broke the headers policy first, in warn mode: counted, not refused.
            assertThat(violations(harness, "produce.requiredHeaders", "warn")).isEqualTo(1);
            assertThat(violations(harness, "produce.requireKey", "enforce")).isEqualTo(1);
        }
    }

    @Test
    void theFirstRuleWhosePrincipalsMatchAppliesAndUnauthenticatedConnectionsGetOnlyRulesWithoutPrincipals() {
        String rules = """
                rules:
                  - name: team-a
                    principals: ["team-a-*"]
                    produce: {requireKey: true}
                  - name: everyone
                    produce: {requiredAcks: all}
                """;
        try (FilterHarness harness = as("team-a-billing", harness(rules))) {
            // team-a's rule, not the catch-all: acks=1 passes, a keyless record does not.
            assertThat(harness.request(PRODUCE_VERSION, produce((short) 1, records(keyed("a")))).verdict())
                    .isEqualTo(io.sluice.proxy.filter.harness.Verdict.FORWARDED);
            assertThat(partition((ProduceResponseData) harness.request(PRODUCE_VERSION, produce((short) 1, records(keyless()))).answer(), 0).errorMessage())
                    .startsWith("policy produce.requireKey (rule team-a)");
        }
        for (FilterHarness harness : List.of(as("team-b", harness(rules)), harness(rules))) {
            try (harness) {
                assertThat(partition((ProduceResponseData) harness.request(PRODUCE_VERSION, produce((short) 1, records(keyless()))).answer(), 0).errorMessage())
                        .startsWith("policy produce.requiredAcks (rule everyone)");
            }
        }
    }

    @Test
    void aPrincipalNoRuleMatchesIsNotPoliced() {
        try (FilterHarness harness = as("ops", harness("""
                rules:
                  - name: team-a
                    principals: ["team-a-*"]
                    produce: {requireKey: true}
                """))) {
            assertThat(harness.request(PRODUCE_VERSION, produce((short) 1, records(keyless()))).verdict())
                    .isEqualTo(io.sluice.proxy.filter.harness.Verdict.FORWARDED);
        }
    }

    @Test
    void corruptRecordsArePartitionErrorsNeverPassedOnUnjudged() {
        try (FilterHarness harness = harness("""
                rules:
                  - name: tenants
                    produce: {requireKey: true}
                """)) {
            MemoryRecords good = records(keyed("a"), keyed("b"));
            ByteBuffer bytes = ByteBuffer.allocate(good.sizeInBytes());
            bytes.put(good.buffer().duplicate()).flip();
            bytes.put(bytes.limit() - 3, (byte) (bytes.get(bytes.limit() - 3) ^ 0x55));
            RequestOutcome outcome = harness.request(PRODUCE_VERSION, produce((short) -1, MemoryRecords.readableRecords(bytes)));

            assertThat(Errors.forCode(partition((ProduceResponseData) outcome.answer(), 0).errorCode())).isEqualTo(Errors.CORRUPT_MESSAGE);
        }
    }

    @Test
    void onlyTheAcksPolicyReadsNoRecordsAndWithoutProducePoliciesProduceIsNotEvenDecoded() {
        try (FilterHarness harness = harness("""
                rules:
                  - name: tenants
                    produce: {requiredAcks: all}
                """)) {
            // A batch that claims more bytes than it holds: read, it would be corrupt; unread, it is forwarded (the broker judges it).
            MemoryRecords good = records(keyed("a"));
            ByteBuffer bytes = ByteBuffer.allocate(good.sizeInBytes());
            bytes.put(good.buffer().duplicate()).flip();
            bytes.put(bytes.limit() - 3, (byte) (bytes.get(bytes.limit() - 3) ^ 0x55));
            assertThat(harness.request(PRODUCE_VERSION, produce((short) -1, MemoryRecords.readableRecords(bytes))).verdict())
                    .isEqualTo(io.sluice.proxy.filter.harness.Verdict.FORWARDED);
        }
        try (FilterHarness harness = harness("""
                rules:
                  - name: tenants
                    topics: {partitions: {max: 3}}
                """)) {
            assertThat(harness.request(PRODUCE_VERSION, produce((short) 1, records(keyless()))).handled()).isFalse();
        }
    }

    private static ProduceResponseData.PartitionProduceResponse partition(ProduceResponseData response, int index) {
        return response.responses().stream().flatMap(t -> t.partitionResponses().stream()).filter(p -> p.index() == index).findFirst().orElseThrow();
    }

}
