package io.sluice.filter.encryption;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** Counters of the RecordEncryption filter, shared by all its instances (tagged with the filter's name). */
final class EncryptionMetrics {

    final Counter recordsEncrypted;
    final Counter recordsDecrypted;
    final Counter encryptFailures;
    final Counter decryptFailures;
    final Counter unencryptedPassthrough;
    final Counter unknownTopicIds;

    EncryptionMetrics(MeterRegistry registry, String filterName) {
        recordsEncrypted = Counter.builder("sluice.encryption.records.encrypted").tag("filter", filterName).register(registry);
        recordsDecrypted = Counter.builder("sluice.encryption.records.decrypted").tag("filter", filterName).register(registry);
        encryptFailures = Counter.builder("sluice.encryption.produce.failures").description("produce requests refused for want of a data key")
                .tag("filter", filterName).register(registry);
        decryptFailures = Counter.builder("sluice.encryption.fetch.failures").description("partitions returned as errors: a key could not be unwrapped or a tag failed")
                .tag("filter", filterName).register(registry);
        unencryptedPassthrough = Counter.builder("sluice.encryption.records.unencrypted").description("records written in plaintext because their KEK does not exist (PASSTHROUGH)")
                .tag("filter", filterName).register(registry);
        unknownTopicIds = Counter.builder("sluice.encryption.unknown.topic.ids")
                .description("produce requests refused and fetched partitions withheld because their topic id could not be resolved")
                .tag("filter", filterName).register(registry);
    }
}
