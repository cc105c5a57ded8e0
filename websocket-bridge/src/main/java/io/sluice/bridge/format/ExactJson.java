package io.sluice.bridge.format;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/**
 * The one way the bridge turns JSON text into trees: records' values wherever they are read (a format's codec, a topic
 * without a format, a cached message read back from its frame, a Kafka log recovery) and clients' requests (filter
 * literals, published payloads). Numbers are exact: every non-integer is a {@link java.math.BigDecimal} kept as
 * written (no trailing zeros stripped), integers are int, long or BigInteger as they fit. A double would make
 * {@code 1000.0000000000000001} equal to 1000 and {@code 1e400} infinite; if one reader used doubles and another
 * decimals, a filter would select different records live and in recovery (docs/bridge-filters.md, "Semantics").
 *
 * <p>Strict as well: exactly one value, no duplicate keys, nesting bounded by the caller's depth. Number text is
 * bounded by Jackson's default {@link StreamReadConstraints#getMaxNumberLength() maxNumberLength} (1000 characters),
 * which also bounds what one BigDecimal costs to parse, compare and write.
 */
public final class ExactJson {

    /** The tree factory for values built by code: the same exact decimals as the parser makes. */
    public static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

    private ExactJson() {
    }

    /** A new reader and writer, nesting bounded by {@code maxDepth}; thread-safe once built, like any ObjectMapper. */
    public static ObjectMapper mapper(int maxDepth) {
        ObjectMapper mapper = new ObjectMapper()
                .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .setNodeFactory(NODES);
        mapper.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(maxDepth).build());
        return mapper;
    }
}
