package io.sluice.filter.policy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.protocol.Errors;

import io.sluice.auth.NamePattern;
import io.sluice.auth.Untrusted;

/**
 * One rule's policies on creating and changing topics. In: a topic's name, partition count, replication factor and
 * the config values a request gives it (or, for what the request leaves to the broker, the broker's defaults); out:
 * what they break, into a {@link Judgement}. The API handlers ({@link TopicCreation}, {@link PartitionCreation},
 * {@link ConfigChanges}) decide what to ask; this class only judges.
 *
 * <p>Every refusal is POLICY_VIOLATION, the error Kafka's own {@code CreateTopicPolicy} and {@code AlterConfigPolicy}
 * give, so tools recognise a policy refusal as such, not as a malformed request; a value a numeric rule cannot read
 * as a number is INVALID_CONFIG, as the broker would answer it.</p>
 */
final class TopicPolicy {

    static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";
    /** How a value from the broker rather than the request is named in a message. */
    static final String BROKER_DEFAULT = " (the broker's default)";
    /** Kafka's longest legal topic name: a longer one is cut in messages (the broker refuses it anyway). */
    private static final int MAX_NAME_CHARS = 249;

    /** A config key's rule, compiled. */
    private record ValueRule(Long min, Long max, Set<String> allowed) {
    }

    private final TopicNames names;
    private final int minPartitions;
    private final int maxPartitions;
    private final int minReplicationFactor;
    private final int minInsyncReplicas;
    private final List<NamePattern> allowedConfigs;
    private final List<NamePattern> forbiddenConfigs;
    private final Map<String, ValueRule> values;
    private final Set<String> judgedKeys;
    private final Set<PolicyId> policies;

    private TopicPolicy(TopicNames names, int minPartitions, int maxPartitions, int minReplicationFactor, int minInsyncReplicas,
                        List<NamePattern> allowedConfigs, List<NamePattern> forbiddenConfigs, Map<String, ValueRule> values) {
        this.names = names;
        this.minPartitions = minPartitions;
        this.maxPartitions = maxPartitions;
        this.minReplicationFactor = minReplicationFactor;
        this.minInsyncReplicas = minInsyncReplicas;
        this.allowedConfigs = allowedConfigs;
        this.forbiddenConfigs = forbiddenConfigs;
        this.values = Collections.unmodifiableMap(values);
        Set<String> keys = new LinkedHashSet<>(values.keySet());
        if (minInsyncReplicas > 0) {
            keys.add(MIN_INSYNC_REPLICAS);
        }
        this.judgedKeys = Collections.unmodifiableSet(keys);
        Set<PolicyId> set = EnumSet.noneOf(PolicyId.class);
        if (names != null) {
            set.add(PolicyId.TOPIC_NAMES);
        }
        if (minPartitions > 0 || maxPartitions > 0) {
            set.add(PolicyId.TOPIC_PARTITIONS);
        }
        if (minReplicationFactor > 0) {
            set.add(PolicyId.TOPIC_MIN_REPLICATION_FACTOR);
        }
        if (minInsyncReplicas > 0) {
            set.add(PolicyId.TOPIC_MIN_INSYNC_REPLICAS);
        }
        if (allowedConfigs != null) {
            set.add(PolicyId.TOPIC_ALLOWED_CONFIGS);
        }
        if (forbiddenConfigs != null) {
            set.add(PolicyId.TOPIC_FORBIDDEN_CONFIGS);
        }
        if (!values.isEmpty()) {
            set.add(PolicyId.TOPIC_CONFIGS);
        }
        this.policies = Set.copyOf(set);
    }

    static TopicPolicy compile(PoliciesConfig.TopicsConfig config, String path) {
        TopicNames names = config.names() == null ? null : TopicNames.compile(config.names(), path + ".names");
        int minPartitions = 0;
        int maxPartitions = 0;
        if (config.partitions() != null) {
            minPartitions = ConfigFields.atLeastOne(config.partitions().min(), path + ".partitions.min");
            maxPartitions = ConfigFields.atLeastOne(config.partitions().max(), path + ".partitions.max");
            if (minPartitions == 0 && maxPartitions == 0) {
                throw new IllegalArgumentException(path + ".partitions: set min, max or both");
            }
            if (maxPartitions > 0 && maxPartitions < minPartitions) {
                throw new IllegalArgumentException(path + ".partitions.max: must be at least min (" + minPartitions + "), not " + maxPartitions);
            }
        }
        int minReplicationFactor = ConfigFields.atLeastOne(config.minReplicationFactor(), path + ".minReplicationFactor");
        if (minReplicationFactor > Short.MAX_VALUE) {
            throw new IllegalArgumentException(path + ".minReplicationFactor: at most " + Short.MAX_VALUE);
        }
        int minInsyncReplicas = ConfigFields.atLeastOne(config.minInsyncReplicas(), path + ".minInsyncReplicas");
        List<NamePattern> allowed = keys(config.allowedConfigs(), path + ".allowedConfigs");
        List<NamePattern> forbidden = keys(config.forbiddenConfigs(), path + ".forbiddenConfigs");
        Map<String, ValueRule> values = new LinkedHashMap<>();
        if (config.configs() != null) {
            for (Map.Entry<String, PoliciesConfig.ValueRule> entry : config.configs().entrySet()) {
                values.put(entry.getKey(), valueRule(entry.getValue(), path + ".configs." + entry.getKey()));
            }
            if (values.isEmpty()) {
                throw new IllegalArgumentException(path + ".configs: must give at least one key's rule, or be left out");
            }
        }
        TopicPolicy policy = new TopicPolicy(names, minPartitions, maxPartitions, minReplicationFactor, minInsyncReplicas, allowed, forbidden, values);
        if (policy.policies.isEmpty()) {
            throw new IllegalArgumentException(path + ": sets no policy");
        }
        return policy;
    }

    private static List<NamePattern> keys(List<String> patterns, String path) {
        if (patterns == null) {
            return null;
        }
        List<NamePattern> compiled = new ArrayList<>();
        for (int i = 0; i < patterns.size(); i++) {
            compiled.add(ConfigFields.pattern(patterns.get(i), path + "[" + i + "]"));
        }
        return List.copyOf(compiled);
    }

    private static ValueRule valueRule(PoliciesConfig.ValueRule rule, String path) {
        if (rule == null) {
            throw new IllegalArgumentException(path + ": expected min, max or allowed");
        }
        boolean numeric = rule.min() != null || rule.max() != null;
        if (numeric && rule.allowed() != null) {
            throw new IllegalArgumentException(path + ": either a range (min, max) or allowed values, not both");
        }
        if (!numeric && (rule.allowed() == null || rule.allowed().isEmpty())) {
            throw new IllegalArgumentException(path + ": expected min, max or a non-empty allowed");
        }
        if (rule.min() != null && rule.max() != null && rule.max() < rule.min()) {
            throw new IllegalArgumentException(path + ".max: must be at least min (" + rule.min() + "), not " + rule.max());
        }
        return new ValueRule(rule.min(), rule.max(), rule.allowed() == null ? null : Set.copyOf(rule.allowed()));
    }

    Set<PolicyId> policies() {
        return policies;
    }

    boolean judgesPartitions() {
        return minPartitions > 0 || maxPartitions > 0;
    }

    boolean judgesReplicationFactor() {
        return minReplicationFactor > 0;
    }

    /** The keys whose values the policy judges: what a topic would have for them matters even when a request leaves them out. */
    Set<String> judgedKeys() {
        return judgedKeys;
    }

    /** Null when the rule sets no name policy. */
    TopicNames names() {
        return names;
    }

    // ---- checks ----

    /** @param bound this connection's patterns ({@link TopicNames#bind}); ignored when the rule has no name policy */
    void checkName(String topic, TopicNames.Bound bound, Judgement judgement) {
        if (names != null && !bound.matches(topic)) {
            judgement.violated(PolicyId.TOPIC_NAMES, Errors.POLICY_VIOLATION, "topic " + quoted(topic) + " is not a name this principal may use ("
                    + bound.shown() + ")");
        }
    }

    /** @param source {@link #BROKER_DEFAULT} when the count is the broker's default, else empty */
    void checkPartitions(String topic, int count, String source, Judgement judgement) {
        if (minPartitions > 0 && count < minPartitions) {
            judgement.violated(PolicyId.TOPIC_PARTITIONS, Errors.POLICY_VIOLATION, "topic " + quoted(topic) + " would have " + count + " partitions"
                    + source + ", fewer than the " + minPartitions + " required");
        } else if (maxPartitions > 0 && count > maxPartitions) {
            judgement.violated(PolicyId.TOPIC_PARTITIONS, Errors.POLICY_VIOLATION, "topic " + quoted(topic) + " would have " + count + " partitions"
                    + source + ", more than the " + maxPartitions + " allowed");
        }
    }

    /** CreatePartitions: only the maximum applies (a topic below the minimum may still grow towards it). */
    void checkPartitionIncrease(String topic, int count, Judgement judgement) {
        if (maxPartitions > 0 && count > maxPartitions) {
            judgement.violated(PolicyId.TOPIC_PARTITIONS, Errors.POLICY_VIOLATION, "topic " + quoted(topic) + " would have " + count
                    + " partitions, more than the " + maxPartitions + " allowed");
        }
    }

    void checkReplicationFactor(String topic, int replicationFactor, String source, Judgement judgement) {
        if (minReplicationFactor > 0 && replicationFactor < minReplicationFactor) {
            judgement.violated(PolicyId.TOPIC_MIN_REPLICATION_FACTOR, Errors.POLICY_VIOLATION, "topic " + quoted(topic) + " would have replication factor "
                    + replicationFactor + source + ", less than the " + minReplicationFactor + " required");
        }
    }

    /** A key a request sets (SET, APPEND, SUBTRACT; a DELETE sets nothing). */
    void checkKey(String topic, String key, Judgement judgement) {
        if (allowedConfigs != null && allowedConfigs.stream().noneMatch(p -> p.matches(key))) {
            judgement.violated(PolicyId.TOPIC_ALLOWED_CONFIGS, Errors.POLICY_VIOLATION, "topic " + quoted(topic) + ": config " + quoted(key)
                    + " may not be set (allowed: " + String.join(", ", allowedConfigs.stream().map(NamePattern::toString).toList()) + ")");
        }
        if (forbiddenConfigs != null) {
            for (NamePattern p : forbiddenConfigs) {
                if (p.matches(key)) {
                    judgement.violated(PolicyId.TOPIC_FORBIDDEN_CONFIGS, Errors.POLICY_VIOLATION, "topic " + quoted(topic) + ": config " + quoted(key)
                            + " may not be set (forbidden: " + p + ")");
                    return;
                }
            }
        }
    }

    /**
     * The value a topic would have for {@code key}, if the policy judges that key.
     *
     * @param value  null when the broker has no value for it
     * @param source {@link #BROKER_DEFAULT} when the value is the broker's, else empty
     */
    void checkValue(String topic, String key, String value, String source, Judgement judgement) {
        if (minInsyncReplicas > 0 && MIN_INSYNC_REPLICAS.equals(key)) {
            Long number = number(topic, key, value, source, PolicyId.TOPIC_MIN_INSYNC_REPLICAS, judgement);
            if (number != null && number < minInsyncReplicas) {
                judgement.violated(PolicyId.TOPIC_MIN_INSYNC_REPLICAS, Errors.POLICY_VIOLATION, "topic " + quoted(topic) + " would have "
                        + MIN_INSYNC_REPLICAS + "=" + number + source + ", less than the " + minInsyncReplicas + " required");
            }
        }
        ValueRule rule = values.get(key);
        if (rule == null) {
            return;
        }
        if (rule.allowed() != null) {
            if (value == null) {
                judgement.violated(PolicyId.TOPIC_CONFIGS, Errors.POLICY_VIOLATION, "topic " + quoted(topic) + ": " + key + " would have no value"
                        + source + "; allowed: " + String.join(", ", rule.allowed().stream().sorted().toList()));
                return;
            }
            for (String element : value.split(",", -1)) {
                if (!rule.allowed().contains(element.strip())) {
                    judgement.violated(PolicyId.TOPIC_CONFIGS, Errors.POLICY_VIOLATION, "topic " + quoted(topic) + ": " + key + "=" + quoted(value) + source
                            + " is not allowed (allowed: " + String.join(", ", rule.allowed().stream().sorted().toList()) + ")");
                    return;
                }
            }
            return;
        }
        Long number = number(topic, key, value, source, PolicyId.TOPIC_CONFIGS, judgement);
        if (number == null) {
            return;
        }
        // -1 is Kafka's "unlimited" (retention.ms, retention.bytes): above every maximum.
        boolean unlimited = number == -1;
        if (rule.max() != null && (unlimited || number > rule.max())) {
            judgement.violated(PolicyId.TOPIC_CONFIGS, Errors.POLICY_VIOLATION, "topic " + quoted(topic) + ": " + key + "=" + number
                    + (unlimited ? " (unlimited)" : "") + source + " is more than the " + rule.max() + " allowed");
        } else if (rule.min() != null && !unlimited && number < rule.min()) {
            judgement.violated(PolicyId.TOPIC_CONFIGS, Errors.POLICY_VIOLATION, "topic " + quoted(topic) + ": " + key + "=" + number + source
                    + " is less than the " + rule.min() + " required");
        }
    }

    private static Long number(String topic, String key, String value, String source, PolicyId policy, Judgement judgement) {
        if (value == null) {
            judgement.violated(policy, Errors.POLICY_VIOLATION, "topic " + quoted(topic) + ": " + key + " would have no value" + source);
            return null;
        }
        try {
            return Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            judgement.violated(policy, Errors.INVALID_CONFIG, "topic " + quoted(topic) + ": " + key + "=" + quoted(value) + source + " is not a whole number");
            return null;
        }
    }

    /** A client-supplied name in a message: quoted, escaped and bounded (a name may be up to 32,767 characters on the wire). */
    static String quoted(String name) {
        return "'" + Untrusted.text(name, MAX_NAME_CHARS) + "'";
    }
}
