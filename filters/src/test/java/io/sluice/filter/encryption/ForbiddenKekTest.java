package io.sluice.filter.encryption;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.filter.records.RecordLimits;
import io.sluice.filter.records.RecordReaders;
import io.sluice.kms.cache.KeyCache;
import io.sluice.kms.cache.KeyCacheConfig;
import io.sluice.kms.inprocess.InProcessKms;
import io.sluice.proxy.filter.harness.FilterHarness;
import io.sluice.proxy.filter.harness.RequestOutcome;
import io.sluice.proxy.filter.harness.Verdict;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A KEK the KMS has but refuses (disabled here; pending deletion and access denied are the same {@code KmsForbiddenException})
 * is never "no key configured": with {@code unresolvedKek: PASSTHROUGH} a produce to its topic is refused with
 * POLICY_VIOLATION and nothing is forwarded, while a topic whose KEK does not exist still passes in plaintext.
 */
class ForbiddenKekTest {

    private static final byte[] SECRET = "card 4111 1111 1111 1111".getBytes(StandardCharsets.UTF_8);

    private final InProcessKms kms = InProcessKms.generate(List.of("orders", "payments"));
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final KeyCache cache = KeyCache.create(kms, KeyCacheConfig.defaults(), registry, timer);

    @AfterEach
    void close() {
        cache.close();
        timer.shutdownNow();
    }

    @Test
    void aDisabledKekRefusesTheProduceEvenWithPassthroughAndForwardsNoPlaintext() throws Exception {
        kms.disable("orders");
        try (FilterHarness harness = FilterHarness.of(filter(EncryptionPolicy.UnresolvedKek.PASSTHROUGH))) {
            RequestOutcome disabled = harness.await(harness.request((short) 12, produce("orders")), Duration.ofSeconds(10));

            assertThat(disabled.verdict()).isEqualTo(Verdict.ANSWERED);
            ProduceResponseData.PartitionProduceResponse partition = ((ProduceResponseData) disabled.answer()).responses().iterator().next()
                    .partitionResponses().get(0);
            assertThat(Errors.forCode(partition.errorCode())).isEqualTo(Errors.POLICY_VIOLATION);
            assertThat(partition.errorMessage()).contains("KEK 'orders'").contains("refuses").contains("disabled");
            assertThat(registry.find("sluice.encryption.records.unencrypted").counter().count()).isZero();

            // The contrast that makes the refusal the forbidden key's doing: a KEK that does not exist is passed through.
            RequestOutcome unknown = harness.await(harness.request((short) 12, produce("no-such-kek")), Duration.ofSeconds(10));
            assertThat(unknown.verdict()).isEqualTo(Verdict.FORWARDED);
            assertThat(registry.find("sluice.encryption.records.unencrypted").counter().count()).isEqualTo(1.0);

            // And a KEK that is enabled encrypts: ciphertext is forwarded, never the secret.
            RequestOutcome enabled = harness.await(harness.request((short) 12, produce("payments")), Duration.ofSeconds(10));
            assertThat(enabled.verdict()).isEqualTo(Verdict.FORWARDED);
            MemoryRecords written = (MemoryRecords) ((ProduceRequestData) enabled.forwarded()).topicData().iterator().next().partitionData().get(0).records();
            byte[] value = Utils.toArray(written.records().iterator().next().value());
            assertThat(new String(value, StandardCharsets.ISO_8859_1)).doesNotContain(new String(SECRET, StandardCharsets.ISO_8859_1));
        }
    }

    @Test
    void aDisabledKekRefusesTheProduceWithReject() throws Exception {
        kms.disable("orders");
        try (FilterHarness harness = FilterHarness.of(filter(EncryptionPolicy.UnresolvedKek.REJECT))) {
            RequestOutcome disabled = harness.await(harness.request((short) 12, produce("orders")), Duration.ofSeconds(10));
            assertThat(disabled.verdict()).isEqualTo(Verdict.ANSWERED);
            assertThat(Errors.forCode(((ProduceResponseData) disabled.answer()).responses().iterator().next().partitionResponses().get(0).errorCode()))
                    .isEqualTo(Errors.POLICY_VIOLATION);
        }
    }

    private RecordEncryptionFilter filter(EncryptionPolicy.UnresolvedKek unresolved) {
        EncryptionPolicy policy = new EncryptionPolicy(List.of("*"), EncryptionPolicy.TOPIC_PLACEHOLDER, unresolved, false);
        return new RecordEncryptionFilter(policy, new KmsDataKeys(cache, 1000), new EncryptionMetrics(registry, "encrypt"),
                new UndecryptableRecords(registry, "encrypt", LoggerFactory.getLogger(ForbiddenKekTest.class)),
                new ProduceRefusals(registry, "encrypt", LoggerFactory.getLogger(ForbiddenKekTest.class)),
                new RecordCipher(), new RecordReaders(RecordLimits.orDefaults(null), registry, "encrypt"));
    }

    private static ProduceRequestData produce(String topic) {
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("k".getBytes(StandardCharsets.UTF_8), SECRET));
        ProduceRequestData request = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
        request.topicData().add(new ProduceRequestData.TopicProduceData().setName(topic)
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records))));
        return request;
    }
}
