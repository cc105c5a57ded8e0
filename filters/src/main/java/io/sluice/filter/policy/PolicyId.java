package io.sluice.filter.policy;

import java.util.Arrays;
import java.util.Optional;

/**
 * Every policy the Policies filter knows, named as its field in the config ({@code produce.requireKey}): the name a
 * refusal's message starts with, the {@code policy} label of {@code sluice_policy_violations_total} (a fixed set, so
 * the label's cardinality is bounded by this enum) and the key of a rule's {@code modes}.
 */
enum PolicyId {

    PRODUCE_REQUIRED_ACKS("produce.requiredAcks"),
    PRODUCE_COMPRESSION_TYPES("produce.compressionTypes"),
    PRODUCE_IDEMPOTENCE("produce.idempotence"),
    PRODUCE_MAX_BATCH_BYTES("produce.maxBatchBytes"),
    PRODUCE_MAX_RECORD_BYTES("produce.maxRecordBytes"),
    PRODUCE_REQUIRE_KEY("produce.requireKey"),
    PRODUCE_REQUIRED_HEADERS("produce.requiredHeaders"),
    PRODUCE_TIMESTAMPS("produce.timestamps"),

    TOPIC_NAMES("topics.names"),
    TOPIC_PARTITIONS("topics.partitions"),
    TOPIC_MIN_REPLICATION_FACTOR("topics.minReplicationFactor"),
    TOPIC_MIN_INSYNC_REPLICAS("topics.minInsyncReplicas"),
    TOPIC_ALLOWED_CONFIGS("topics.allowedConfigs"),
    TOPIC_FORBIDDEN_CONFIGS("topics.forbiddenConfigs"),
    TOPIC_CONFIGS("topics.configs");

    private final String id;

    PolicyId(String id) {
        this.id = id;
    }

    String id() {
        return id;
    }

    static Optional<PolicyId> of(String id) {
        return Arrays.stream(values()).filter(p -> p.id.equals(id)).findFirst();
    }

    @Override
    public String toString() {
        return id;
    }
}
