package io.sluice.filter.validation;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.sluice.auth.NamePattern;
import io.sluice.format.AvroCodec;
import io.sluice.format.FormatLimits;
import io.sluice.format.JsonCodec;
import io.sluice.format.JsonSchemaCodec;
import io.sluice.format.ProtobufCodec;
import io.sluice.format.RecordPart;
import io.sluice.format.SchemaCodec;
import io.sluice.format.SubjectNameStrategy;
import io.sluice.format.registry.CachingSchemaSource;
import io.sluice.format.registry.SchemaType;

/**
 * The configured rules, built once at start-up: for a topic, the first rule whose patterns match it. Each rule's key
 * and value checks share one codec per schema language and format (their parsed schemas are cached per codec), and
 * every rule shares the filter definition's registry cache.
 */
final class ValidationRules {

    /** What a rule does with records it cannot check because the registry cannot answer. */
    enum OnOutage {
        /** Fail closed (default): the partition is answered REQUEST_TIMED_OUT, which producers retry. */
        REFUSE,
        /** Fail open: the records go on unchecked, counted and logged. */
        ACCEPT
    }

    /** One rule, compiled. */
    record Rule(int index, List<NamePattern> topics, PartCheck key, PartCheck value, OnOutage onOutage) {

        boolean matches(String topic) {
            for (NamePattern p : topics) {
                if (p.matches(topic)) {
                    return true;
                }
            }
            return false;
        }
    }

    private static final Set<String> STRATEGIES = Set.of("topic", "record", "topic-record");

    private final List<Rule> rules;

    private ValidationRules(List<Rule> rules) {
        this.rules = rules;
    }

    /** The rule for {@code topic}, or null: its records pass unchecked. */
    Rule forTopic(String topic) {
        for (Rule rule : rules) {
            if (rule.matches(topic)) {
                return rule;
            }
        }
        return null;
    }

    /**
     * Problems of one rule, each naming its field under {@code prefix} ({@code rules[0]}); true when the rule needs the
     * registry.
     */
    static boolean validate(RecordValidation.RuleConfig rule, String prefix, List<String> problems) {
        if (rule == null) {
            problems.add(prefix + ": is empty; give topics and key, value or both");
            return false;
        }
        if (rule.topics() == null || rule.topics().isEmpty()) {
            problems.add(prefix + ".topics: at least one topic pattern is required");
        }
        else {
            for (int i = 0; i < rule.topics().size(); i++) {
                try {
                    NamePattern.compile(rule.topics().get(i));
                }
                catch (IllegalArgumentException e) {
                    problems.add(prefix + ".topics[" + i + "]: " + e.getMessage());
                }
            }
        }
        if (rule.key() == null && rule.value() == null) {
            problems.add(prefix + ": give key, value or both");
        }
        if (rule.onRegistryOutage() != null && onOutage(rule.onRegistryOutage()) == null) {
            problems.add(prefix + ".onRegistryOutage: must be refuse or accept, not '" + rule.onRegistryOutage() + "'");
        }
        boolean registry = validate(rule.key(), prefix + ".key", problems);
        return validate(rule.value(), prefix + ".value", problems) || registry;
    }

    private static boolean validate(RecordValidation.PartConfig part, String prefix, List<String> problems) {
        if (part == null) {
            return false;
        }
        PartCheck.Format format = PartCheck.Format.of(part.format());
        if (format == null) {
            problems.add(prefix + ".format: must be one of avro, protobuf, json-schema, json, any"
                    + (part.format() == null ? " (it is required)" : ", not '" + part.format() + "'"));
        }
        if (part.subjectNameStrategy() != null && !STRATEGIES.contains(part.subjectNameStrategy())) {
            problems.add(prefix + ".subjectNameStrategy: must be topic, record or topic-record, not '" + part.subjectNameStrategy() + "'");
        }
        if (part.schemaVersion() != null && !part.schemaVersion().equals("any") && !part.schemaVersion().equals("latest")) {
            problems.add(prefix + ".schemaVersion: must be any or latest, not '" + part.schemaVersion() + "'");
        }
        if (part.nulls() != null && !part.nulls().equals("accept") && !part.nulls().equals("refuse")) {
            problems.add(prefix + ".nulls: must be accept or refuse, not '" + part.nulls() + "'");
        }
        if (format == PartCheck.Format.JSON) {
            if (part.subjectNameStrategy() != null || part.schemaVersion() != null) {
                problems.add(prefix + ": json records carry no schema id, so subjectNameStrategy and schemaVersion do not apply");
            }
            if (Boolean.FALSE.equals(part.decode())) {
                problems.add(prefix + ".decode: json has nothing to check but its parse; remove decode: false");
            }
        }
        return format != null && format.needsRegistry();
    }

    /** Builds the checks of validated rules; {@code registry} is null only when no rule needs one. */
    static ValidationRules build(List<RecordValidation.RuleConfig> configs, CachingSchemaSource registry, FormatLimits limits) {
        List<Rule> rules = new ArrayList<>();
        for (int i = 0; i < configs.size(); i++) {
            RecordValidation.RuleConfig config = configs.get(i);
            rules.add(new Rule(i, config.topics().stream().map(NamePattern::compile).toList(),
                    check(config.key(), RecordPart.KEY, registry, limits), check(config.value(), RecordPart.VALUE, registry, limits),
                    config.onRegistryOutage() == null ? OnOutage.REFUSE : onOutage(config.onRegistryOutage())));
        }
        return new ValidationRules(List.copyOf(rules));
    }

    private static PartCheck check(RecordValidation.PartConfig config, RecordPart part, CachingSchemaSource registry, FormatLimits limits) {
        if (config == null) {
            return null;
        }
        PartCheck.Format format = PartCheck.Format.of(config.format());
        Map<SchemaType, SchemaCodec> codecs = new EnumMap<>(SchemaType.class);
        if (format == PartCheck.Format.AVRO || format == PartCheck.Format.ANY) {
            codecs.put(SchemaType.AVRO, AvroCodec.registry(registry, part, limits));
        }
        if (format == PartCheck.Format.PROTOBUF || format == PartCheck.Format.ANY) {
            codecs.put(SchemaType.PROTOBUF, ProtobufCodec.registry(registry, part, null, false, limits));
        }
        if (format == PartCheck.Format.JSON_SCHEMA || format == PartCheck.Format.ANY) {
            codecs.put(SchemaType.JSON, JsonSchemaCodec.registry(registry, part, limits));
        }
        SubjectNameStrategy strategy = config.subjectNameStrategy() == null ? SubjectNameStrategy.TOPIC
                : SubjectNameStrategy.fromYaml(config.subjectNameStrategy());
        return new PartCheck(part, format, strategy, "latest".equals(config.schemaVersion()), !Boolean.FALSE.equals(config.decode()),
                "refuse".equals(config.nulls()), registry, codecs, new JsonCodec(limits));
    }

    private static OnOutage onOutage(String text) {
        return switch (text) {
            case "refuse" -> OnOutage.REFUSE;
            case "accept" -> OnOutage.ACCEPT;
            default -> null;
        };
    }
}
