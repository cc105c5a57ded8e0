package io.sluice.filter.masking;

import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.filter.records.RecordLimits;
import io.sluice.filter.records.RecordReaders;
import io.sluice.format.FormatLimits;
import io.sluice.format.FormatRule;
import io.sluice.format.Formats;
import io.sluice.format.SchemaFileException;
import io.sluice.format.mask.MaskingConfig;
import io.sluice.format.mask.Masks;
import io.sluice.format.registry.CachingSchemaSource;
import io.sluice.format.registry.RegistryConfig;
import io.sluice.format.registry.RegistryMeters;
import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.filter.FilterFactoryContext;

/**
 * The FieldMasking filter: fetched records of the topics its rules name reach each client with the rules' fields
 * masked, unless the client's token may see them whole (an {@code unmask} grant, or a principal pattern of the rule).
 * The masked value is written back with the record's own schema and schema id, so every deserializer reads it. The
 * sections {@code schemaRegistry}, {@code formats} and {@code masking} are the bridge's, with the same fields: one
 * definition of a mask serves both (docs/masking.md).
 *
 * <pre>
 * filterDefinitions:
 *   - name: mask
 *     type: FieldMasking
 *     config:
 *       schemaRegistry: {url: http://registry:8081}
 *       formats:
 *         - topics: orders
 *           value: {type: avro, registry: true}
 *       masking:
 *         hashKeyFile: /etc/sluice/mask.key
 *         rules:
 *           - topics: orders
 *             fields:
 *               - {path: /card/number, mask: keepLast, chars: 4}
 *               - {path: /customer/email, mask: hash}
 * </pre>
 *
 * <p>List it before RecordEncryption: responses pass the filters in reverse order, so it then sees the decrypted records.
 */
public final class FieldMasking implements FilterFactory<FieldMasking.Config, FieldMasking.Shared> {

    private static final Logger LOG = LoggerFactory.getLogger(FieldMasking.class);

    /**
     * @param schemaRegistry the registry (docs/bridge-registry.md's section); required when a format reads from it
     * @param formats        the topics' value formats, as the bridge's {@code formats}; a masked topic no rule names is
     *                       read as {@code json}
     * @param masking        the masks, as the bridge's {@code masking}
     * @param records        how much of the fetched records it reads, at most (absent: the filters' defaults)
     * @param maxDepth       deepest nesting of a decoded value (default 64)
     */
    public record Config(RegistryConfig schemaRegistry, List<FormatRule> formats, MaskingConfig masking, RecordLimits records,
                         Integer maxDepth) {
    }

    /** What every connection's filter shares. */
    record Shared(Formats formats, Masks masks, CachingSchemaSource registry, RecordReaders records, MaskingMetrics metrics,
                  FormatLimits limits) {
    }

    @Override
    public Class<Config> configType() {
        return Config.class;
    }

    @Override
    public Shared initialize(FilterFactoryContext context, Config config) {
        FormatLimits limits = checked(config);
        Masks masks = Masks.build(config.masking(), "masking");
        CachingSchemaSource registry = config.schemaRegistry() == null ? null
                : CachingSchemaSource.create(config.schemaRegistry(), context.meterRegistry(), RegistryMeters.filter(context.filterName()));
        Formats formats;
        try {
            formats = Formats.build(config.formats() == null ? List.of() : config.formats(), registry, limits);
        } catch (SchemaFileException e) {
            if (registry != null) {
                registry.close();
            }
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        List<String> problems = masks.checkSchemas(formats, masks.literalTopics(),
                why -> LOG.warn("{}: cannot check the masks against the schema of {} now; its records are checked as they come", context.filterName(), why));
        if (!problems.isEmpty()) {
            if (registry != null) {
                registry.close();
            }
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        return new Shared(formats, masks, registry, new RecordReaders(RecordLimits.orDefaults(config.records()), context.meterRegistry(),
                context.filterName()), new MaskingMetrics(context.meterRegistry(), context.filterName()), limits);
    }

    /** The same checks as {@link #initialize}, reading no file and starting no registry client. */
    @Override
    public void validate(FilterFactoryContext context, Config config) {
        checked(config);
    }

    @Override
    public Filter createFilter(FilterFactoryContext context, Shared shared) {
        return new FieldMaskingFilter(shared);
    }

    @Override
    public void close(Shared shared) {
        if (shared.registry() != null) {
            shared.registry().close();
        }
    }

    /** Every problem of {@code config}, each naming its field, in one IllegalArgumentException. */
    static FormatLimits checked(Config config) {
        List<String> problems = new ArrayList<>();
        if (config == null || config.masking() == null || config.masking().rules().isEmpty()) {
            throw new IllegalArgumentException("masking.rules: at least one rule is required");
        }
        config.masking().validate("masking", problems);
        List<FormatRule> formats = config.formats() == null ? List.of() : config.formats();
        for (int i = 0; i < formats.size(); i++) {
            if (formats.get(i) == null) {
                problems.add("formats[" + i + "]: empty");
                continue;
            }
            formats.get(i).validate(i, config.schemaRegistry() != null, problems);
        }
        if (config.schemaRegistry() != null) {
            config.schemaRegistry().validate(problems, "schemaRegistry");
        }
        int maxDepth = config.maxDepth() == null ? FormatLimits.DEFAULT_MAX_DEPTH : config.maxDepth();
        if (maxDepth < 1 || maxDepth > 1000) {
            problems.add("maxDepth: must be between 1 and 1000, not " + maxDepth);
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        return new FormatLimits(maxDepth, FormatLimits.DEFAULT_MAX_PARSED_SCHEMAS, FormatLimits.DEFAULT_MAX_REFERENCES);
    }
}
