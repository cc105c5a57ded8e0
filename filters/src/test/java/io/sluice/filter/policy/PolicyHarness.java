package io.sluice.filter.policy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;

import io.micrometer.core.instrument.Counter;
import io.sluice.config.ConfigLoader;
import io.sluice.proxy.filter.AuthenticatedPrincipal;
import io.sluice.proxy.filter.harness.FilterHarness;

/** The Policies filter in a {@link FilterHarness}, its config written as YAML and bound by the proxy's own binder. */
final class PolicyHarness {

    static final String TOPIC = "orders";
    /** Produce v12: topics by name (v13 names them by id, which the policies do not need). */
    static final short PRODUCE_VERSION = 12;

    private PolicyHarness() {
    }

    /** {@code yaml} is what goes under {@code config:} in the filter definition. */
    static PoliciesConfig config(String yaml) {
        return ConfigLoader.bind(ConfigLoader.tree(yaml, Map.of()), PoliciesConfig.class, "filterDefinitions[policies].config");
    }

    static FilterHarness harness(String yaml) {
        return FilterHarness.of("policies", new Policies(), config(yaml));
    }

    /** The harness, its connection authenticated as {@code principal} (what JwtAuth does in a proxy). */
    static FilterHarness as(String principal, FilterHarness harness) {
        harness.context().authenticated(new AuthenticatedPrincipal(principal, "OAUTHBEARER", Map.of()));
        return harness;
    }

    static double violations(FilterHarness harness, String policy, String mode) {
        Counter counter = harness.meterRegistry().find("sluice.policy.violations").tag("policy", policy).tag("mode", mode).counter();
        return counter == null ? 0 : counter.count();
    }

    /** A Produce of {@code partitions[i]} to partition i of {@link #TOPIC}. */
    static ProduceRequestData produce(short acks, MemoryRecords... partitions) {
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName(TOPIC);
        for (int i = 0; i < partitions.length; i++) {
            topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(i).setRecords(partitions[i]));
        }
        ProduceRequestData request = new ProduceRequestData().setAcks(acks).setTimeoutMs(30_000);
        request.topicData().add(topic);
        return request;
    }

    static MemoryRecords records(SimpleRecord... records) {
        return MemoryRecords.withRecords(Compression.NONE, records);
    }

    static MemoryRecords idempotent(SimpleRecord... records) {
        return MemoryRecords.withIdempotentRecords(Compression.NONE, 4711L, (short) 0, 0, records);
    }

    static SimpleRecord keyed(String key) {
        return new SimpleRecord(System.currentTimeMillis(), bytes(key), bytes("value of " + key));
    }

    static SimpleRecord keyless() {
        return new SimpleRecord(System.currentTimeMillis(), null, bytes("no key"));
    }

    static byte[] bytes(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    static List<SimpleRecord> keyedRecords(int count) {
        return java.util.stream.IntStream.range(0, count).mapToObj(i -> keyed("k" + i)).toList();
    }
}
