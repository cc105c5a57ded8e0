package io.sluice.filter.validation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.sluice.filter.records.RecordLimits;
import io.sluice.filter.records.RecordReaders;
import io.sluice.format.FormatLimits;
import io.sluice.format.registry.CachingSchemaSource;
import io.sluice.format.registry.RegistryConfig;
import io.sluice.format.registry.RegistryMeters;
import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.filter.FilterFactoryContext;

/**
 * The RecordValidation filter: produced records of the topics its rules name must be in the format the rule requires
 * (Avro, Protobuf or JSON Schema in the Confluent wire format with a registered schema id of the right subject, or
 * plain JSON), checked before they reach the broker. A partition holding a record that is not is refused with
 * INVALID_RECORD, naming the record and the reason (Produce v8+ {@code record_errors}); the request's other partitions
 * go on. Schemas come from a Confluent-compatible registry through the formats module's client and cache, looked up
 * on lookup threads, never on an event loop. See docs/validation.md.
 *
 * <pre>
 * filterDefinitions:
 *   - name: validate
 *     type: RecordValidation
 *     config:
 *       schemaRegistry: {url: http://registry:8081}
 *       rules:
 *         - topics: [orders]
 *           value: {format: avro}
 * </pre>
 */
public final class RecordValidation implements FilterFactory<RecordValidation.Config, RecordValidation.Shared> {

    /** 10 s (decision): below the proxy's default {@code network.filterTimeout} (20 s), which closes the connection. */
    public static final Duration DEFAULT_LOOKUP_TIMEOUT = Duration.ofSeconds(10);

    /**
     * @param schemaRegistry the registry (docs/bridge-registry.md's section, the same fields); required when a rule
     *                       names a format other than {@code json}
     * @param rules          by topic; the first rule whose {@code topics} match a topic applies, topics none match pass
     * @param records        how much of the produced records it reads, at most (absent: the filters' defaults)
     * @param limits         bounds of decoding and of answers
     * @param lookupTimeout  how long a Produce may wait for the schema lookups its records need; then the records it
     *                       could not check meet their rule's {@code onRegistryOutage} (default 10s)
     */
    public record Config(RegistryConfig schemaRegistry, List<RuleConfig> rules, RecordLimits records, LimitsConfig limits,
                         Duration lookupTimeout) {
    }

    /**
     * @param topics           topic name patterns ({@code *} any run of characters, as in the JWT permissions)
     * @param key              what the record keys must be, or absent for no check
     * @param value            what the record values must be, or absent for no check
     * @param onRegistryOutage {@code refuse} (default: fail closed, the partition is answered REQUEST_TIMED_OUT and
     *                         producers retry) or {@code accept} (fail open: the records go on unchecked, counted)
     */
    public record RuleConfig(List<String> topics, PartConfig key, PartConfig value, String onRegistryOutage) {
    }

    /**
     * @param format              avro, protobuf, json-schema (each in the Confluent wire format), json (one JSON value,
     *                            no header) or any (the Confluent wire format with a registered schema of any of the
     *                            three)
     * @param subjectNameStrategy topic (default), record or topic-record: which subject the schema id must belong to
     * @param schemaVersion       any (default: any version registered under the subject) or latest (the subject's
     *                            latest only)
     * @param decode              read the payload against its schema (default true); false checks the header, the id and
     *                            the subject only, for cost
     * @param nulls               accept (default) or refuse a record without a key or value
     */
    public record PartConfig(String format, String subjectNameStrategy, String schemaVersion, Boolean decode, String nulls) {
    }

    /**
     * @param maxDepth         deepest nesting of a decoded value (default 64)
     * @param maxParsedSchemas parsed schemas kept per format (default 1000)
     * @param maxReferences    schemas one schema may pull in through references (default 100)
     * @param maxRecordErrors  refused records a partition's answer names, at most (default 100); the rest are counted
     *                         in its message
     */
    public record LimitsConfig(Integer maxDepth, Integer maxParsedSchemas, Integer maxReferences, Integer maxRecordErrors) {
    }

    /** What every connection's filter shares: the rules, the registry cache, the record limits and the meters. */
    record Shared(ValidationRules rules, CachingSchemaSource registry, RecordReaders records, ValidationMetrics metrics,
                         Duration lookupTimeout, int maxRecordErrors) {
    }

    @Override
    public Class<Config> configType() {
        return Config.class;
    }

    @Override
    public Shared initialize(FilterFactoryContext context, Config config) {
        Checked checked = checked(config);
        CachingSchemaSource registry = config.schemaRegistry() == null ? null
                : CachingSchemaSource.create(config.schemaRegistry(), context.meterRegistry(), RegistryMeters.filter(context.filterName()));
        ValidationRules rules = ValidationRules.build(config.rules(), registry, checked.formatLimits());
        return new Shared(rules, registry, new RecordReaders(RecordLimits.orDefaults(config.records()), context.meterRegistry(), context.filterName()),
                new ValidationMetrics(context.meterRegistry(), context.filterName()), checked.lookupTimeout(), checked.maxRecordErrors());
    }

    /** The same checks as {@link #initialize}, with no registry client and no lookup threads. */
    @Override
    public void validate(FilterFactoryContext context, Config config) {
        checked(config);
    }

    @Override
    public Filter createFilter(FilterFactoryContext context, Shared shared) {
        return new RecordValidationFilter(shared);
    }

    @Override
    public void close(Shared shared) {
        if (shared.registry() != null) {
            shared.registry().close();
        }
    }

    private record Checked(FormatLimits formatLimits, Duration lookupTimeout, int maxRecordErrors) {
    }

    /** Every problem of {@code config}, each naming its field, in one IllegalArgumentException. */
    static Checked checked(Config config) {
        List<String> problems = new ArrayList<>();
        if (config == null || config.rules() == null || config.rules().isEmpty()) {
            throw new IllegalArgumentException("rules: at least one rule is required");
        }
        boolean needsRegistry = false;
        for (int i = 0; i < config.rules().size(); i++) {
            needsRegistry |= ValidationRules.validate(config.rules().get(i), "rules[" + i + "]", problems);
        }
        if (config.schemaRegistry() != null) {
            config.schemaRegistry().validate(problems, "schemaRegistry");
        }
        else if (needsRegistry) {
            problems.add("schemaRegistry: required: a rule's format reads schemas from the registry (only json does not)");
        }
        LimitsConfig limits = config.limits() == null ? new LimitsConfig(null, null, null, null) : config.limits();
        int maxDepth = positive(limits.maxDepth(), FormatLimits.DEFAULT_MAX_DEPTH, 1, 1000, "limits.maxDepth", problems);
        int maxParsed = positive(limits.maxParsedSchemas(), FormatLimits.DEFAULT_MAX_PARSED_SCHEMAS, 1, 1_000_000, "limits.maxParsedSchemas", problems);
        int maxReferences = positive(limits.maxReferences(), FormatLimits.DEFAULT_MAX_REFERENCES, 0, 10_000, "limits.maxReferences", problems);
        int maxRecordErrors = positive(limits.maxRecordErrors(), 100, 1, 10_000, "limits.maxRecordErrors", problems);
        Duration lookupTimeout = config.lookupTimeout() == null ? DEFAULT_LOOKUP_TIMEOUT : config.lookupTimeout();
        if (lookupTimeout.isNegative() || lookupTimeout.isZero()) {
            problems.add("lookupTimeout: must be positive");
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        return new Checked(new FormatLimits(maxDepth, maxParsed, maxReferences), lookupTimeout, maxRecordErrors);
    }

    private static int positive(Integer value, int defaultValue, int min, int max, String field, List<String> problems) {
        int v = value == null ? defaultValue : value;
        if (v < min || v > max) {
            problems.add(field + ": must be between " + min + " and " + max + ", not " + v);
        }
        return v;
    }
}
