package io.sluice.filter.policy;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.sluice.filter.records.RecordLimits;

/**
 * The Policies filter's {@code config}, bound by the proxy's strict binder (an unknown field is an error naming it);
 * {@link Rules#compile} checks the values, naming {@code rules[i].<field>}. Every field is documented in
 * docs/policies.md.
 *
 * @param rules   in order; a connection gets the first rule whose {@code principals} match its principal
 * @param records how much of the produced records the record-level policies read, at most (absent: the defaults)
 */
public record PoliciesConfig(List<RuleConfig> rules, RecordLimits records) {

    /**
     * @param name       names the rule in refusals, logs and metrics; required, unique
     * @param principals principal name patterns ({@code *}, {@code ?}); absent: every connection, unauthenticated included
     * @param mode       the mode of the rule's policies (default enforce)
     * @param modes      a mode per policy ({@code produce.requireKey: warn}), over {@code mode}
     * @param produce    policies on Produce requests
     * @param topics     policies on CreateTopics, CreatePartitions, AlterConfigs and IncrementalAlterConfigs
     */
    public record RuleConfig(String name, List<String> principals, PolicyMode mode, Map<String, PolicyMode> modes, ProduceConfig produce, TopicsConfig topics) {
    }

    /**
     * @param requiredAcks     {@code all} (or {@code -1}): acks must be all; {@code 1}: acks 1 or all
     * @param compressionTypes the codecs a batch may use: none, gzip, snappy, lz4, zstd
     * @param idempotence      every batch must come from an idempotent (or transactional) producer
     * @param maxBatchBytes    the largest batch as sent (compressed), in bytes
     * @param maxRecordBytes   the largest record, uncompressed, in bytes
     * @param requireKey       every record must have a key
     * @param requiredHeaders  every record must have a header of each of these names
     * @param timestamps       record timestamps must lie within this window around the proxy's clock
     */
    public record ProduceConfig(String requiredAcks, List<String> compressionTypes, Boolean idempotence, Integer maxBatchBytes, Integer maxRecordBytes,
                                Boolean requireKey, List<String> requiredHeaders, TimestampWindow timestamps) {
    }

    /**
     * @param maxPast   how far before now a record's timestamp may be
     * @param maxFuture how far after now
     */
    public record TimestampWindow(Duration maxPast, Duration maxFuture) {
    }

    /**
     * @param names                the topics the rule's principals may create and change, as patterns; {@code $(principal)}
     *                             stands for the connection's principal
     * @param partitions           how many partitions a topic may have
     * @param minReplicationFactor the smallest replication factor a new topic may have
     * @param minInsyncReplicas    the smallest {@code min.insync.replicas} a topic may have
     * @param allowedConfigs       the only config keys (patterns) a request may set
     * @param forbiddenConfigs     config keys (patterns) a request may not set
     * @param configs              what values keys may take, by key
     */
    public record TopicsConfig(List<String> names, Range partitions, Integer minReplicationFactor, Integer minInsyncReplicas,
                               List<String> allowedConfigs, List<String> forbiddenConfigs, Map<String, ValueRule> configs) {
    }

    /** An inclusive range; either end may be absent. */
    public record Range(Integer min, Integer max) {
    }

    /**
     * The values a config key may take: a number within {@code min}..{@code max} ({@code -1}, Kafka's "unlimited", is
     * above every max), or (for every element of a comma-separated list) one of {@code allowed}.
     */
    public record ValueRule(Long min, Long max, List<String> allowed) {
    }
}
