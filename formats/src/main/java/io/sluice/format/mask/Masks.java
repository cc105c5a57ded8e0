package io.sluice.format.mask;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

import io.sluice.format.EncodeException;
import io.sluice.format.Formats;
import io.sluice.format.SchemaLookupException;

/**
 * The masking rules, compiled once at startup (docs/masking.md). For a topic, the first rule whose pattern matches it;
 * for a reader, the {@link ValueMask} of the fields it may not see whole. Thread-safe.
 */
public final class Masks {

    /** Topics remembered with their rule (or none), at most; beyond, topics are matched against the rules each time. */
    private static final int MAX_REMEMBERED_TOPICS = 100_000;

    private record Rule(int index, Pattern topics, List<FieldMask> fields, List<Pattern> unmaskPrincipals, MaskFailure onFailure) {
    }

    private static final Masks NONE = new Masks(List.of());

    private final List<Rule> rules;
    private final Map<String, Optional<Rule>> byTopic = new ConcurrentHashMap<>();

    private Masks(List<Rule> rules) {
        this.rules = rules;
    }

    /** No masks: every topic as stored. */
    public static Masks none() {
        return NONE;
    }

    /**
     * Compiles validated rules; reads the hash key file when a rule hashes.
     *
     * @throws IllegalArgumentException naming the field of {@code prefix} that is wrong
     */
    public static Masks build(MaskingConfig config, String prefix) {
        if (config == null || config.rules().isEmpty()) {
            return NONE;
        }
        List<String> problems = new ArrayList<>();
        config.validate(prefix, problems);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        boolean hashes = config.rules().stream().anyMatch(r -> r.fields().stream().anyMatch(f -> f.mask() == MaskKind.HASH));
        HashKey key = hashes ? HashKey.read(config.hashKeyFile(), prefix + ".hashKeyFile") : null;
        return build(config.rules(), key);
    }

    /** For tests: rules with the hash key given directly. */
    public static Masks build(List<MaskRule> rules, byte[] hashKey) {
        return build(rules, hashKey == null ? null : HashKey.of(hashKey));
    }

    private static Masks build(List<MaskRule> rules, HashKey key) {
        List<Rule> compiled = new ArrayList<>();
        for (int i = 0; i < rules.size(); i++) {
            MaskRule rule = rules.get(i);
            List<FieldMask> fields = rule.fields().stream().map(f -> new FieldMask(f, key)).toList();
            compiled.add(new Rule(i, Pattern.compile(rule.topics()), fields,
                    rule.unmaskPrincipals().stream().map(Pattern::compile).toList(), rule.onFailure()));
        }
        return new Masks(List.copyOf(compiled));
    }

    /** Whether any rule exists (no rule: no work anywhere). */
    public boolean any() {
        return !rules.isEmpty();
    }

    /** Whether a rule names {@code topic}: only records of such topics are decoded for masking. */
    public boolean names(String topic) {
        return rule(topic) != null;
    }

    /**
     * The masks {@code viewer} gets on {@code topic}: null when no rule names the topic, or the reader sees every field
     * of it whole (a principal pattern of the rule, or grants covering every masked field).
     */
    public ValueMask forViewer(String topic, MaskViewer viewer) {
        Rule rule = rule(topic);
        if (rule == null) {
            return null;
        }
        String principal = viewer.principal();
        if (principal != null) {
            for (Pattern p : rule.unmaskPrincipals()) {
                if (p.matcher(principal).matches()) {
                    return null;
                }
            }
        }
        List<FieldMask> applied = new ArrayList<>(rule.fields().size());
        List<Integer> indexes = new ArrayList<>(rule.fields().size());
        for (int i = 0; i < rule.fields().size(); i++) {
            FieldMask mask = rule.fields().get(i);
            if (!viewer.unmasked(topic, mask.path())) {
                applied.add(mask);
                indexes.add(i);
            }
        }
        return applied.isEmpty() ? null : new ValueMask(rule.index(), applied, indexes, rule.onFailure());
    }

    /**
     * Checks the rule of each topic against the schema its value is written with (docs/masking.md, "When the schema is
     * checked"): each mask applied alone to a sample value of the schema with every field present ({@link Codec#sample})
     * and written back ({@link Codec#encode}); a mask the field cannot carry (keepLast on an Avro int, null on a field
     * that is not nullable, remove of a field without a default) is a problem naming the rule's field. For the topics the
     * configuration names (the bridge's, a rule's literal topic): others are checked by their first record. May ask the
     * registry; never on an event loop.
     *
     * @param formats   the topics' formats; a topic without one is JSON, which has no schema to check against
     * @param unchecked told why a topic could not be checked now (the registry does not answer): its records still fail
     *                  closed
     * @return the problems, each naming {@code masking.rules[i].fields[j]} and its path
     */
    public List<String> checkSchemas(Formats formats, Collection<String> topics, Consumer<String> unchecked) {
        List<String> problems = new ArrayList<>();
        for (String topic : topics) {
            Rule rule = rule(topic);
            Formats.TopicFormat format = rule == null ? null : formats.forTopic(topic);
            if (format == null || format.value() == null) {
                continue;
            }
            JsonNode sample;
            try {
                sample = format.value().sample(topic);
            } catch (SchemaLookupException e) {
                unchecked.accept("topic " + topic + ": " + e.getMessage());
                continue;
            }
            if (sample == null) {
                continue;
            }
            for (int i = 0; i < rule.fields().size(); i++) {
                FieldMask mask = rule.fields().get(i);
                String where = "masking.rules[" + rule.index() + "].fields[" + i + "] (" + mask.path() + ", topic " + topic + ")";
                try {
                    JsonNode masked = sample.deepCopy();
                    mask.apply(masked);
                    format.value().encode(topic, masked);
                } catch (EncodeException e) {
                    problems.add(where + ": " + mask.kind().yamlName() + " does not fit the schema: " + e.getMessage());
                }
            }
        }
        return problems;
    }

    /** A topic name {@code topics} matches alone (a regular expression without metacharacters, dots escaped or not). */
    public static Optional<String> literalTopic(String topics) {
        String unescaped = topics.replace("\\.", ".");
        return unescaped.chars().anyMatch(c -> "\\[](){}*+?|^$".indexOf(c) >= 0) ? Optional.empty() : Optional.of(unescaped);
    }

    /** The literal topics the rules name ({@link #literalTopic}). */
    public List<String> literalTopics() {
        List<String> out = new ArrayList<>();
        for (Rule rule : rules) {
            literalTopic(rule.topics().pattern()).ifPresent(out::add);
        }
        return out;
    }

    private Rule rule(String topic) {
        Optional<Rule> known = byTopic.get(topic);
        if (known != null) {
            return known.orElse(null);
        }
        Rule found = null;
        for (Rule rule : rules) {
            if (rule.topics().matcher(topic).matches()) {
                found = rule;
                break;
            }
        }
        if (byTopic.size() < MAX_REMEMBERED_TOPICS) {
            byTopic.put(topic, Optional.ofNullable(found));
        }
        return found;
    }
}
