package io.sluice.format;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ValueNode;

/**
 * The one way the bridge turns JSON text into trees: records' values wherever they are read (a format's codec, a topic
 * without a format, a cached message read back from its frame, a Kafka log recovery) and clients' requests (filter
 * literals, published payloads, HTTP publish bodies, SSE filters). Numbers are exact: every non-integer is a
 * {@link java.math.BigDecimal} kept as written (no trailing zeros stripped), integers are int, long or BigInteger as
 * they fit. A double would make {@code 1000.0000000000000001} equal to 1000 and {@code 1e400} infinite; if one reader
 * used doubles and another decimals, a filter would select different records live and in recovery
 * (docs/bridge-filters.md, "Semantics").
 *
 * <p>Strict as well: exactly one value, no duplicate keys, nesting bounded by the caller's depth. Number text is
 * bounded by Jackson's default {@link StreamReadConstraints#getMaxNumberLength() maxNumberLength} (1000 characters),
 * and a decimal's exponent by {@link #MAX_EXPONENT}: {@code 1e999999999} is 11 characters, but a schema's
 * {@code multipleOf}, an Avro or Protobuf integer field or anything else that turns it into an integer would build a
 * number of a billion digits. Within both bounds one number costs at most about 11,000 digits of work.
 */
public final class ExactJson {

    /**
     * The largest exponent (a decimal's scale, either sign) a number may have: ten times the digits Jackson lets a number
     * be written with, so every literal anyone writes by hand (1e400, 1E-400) is a number, and no number is more than
     * about 11,000 digits away from an integer.
     */
    public static final int MAX_EXPONENT = 10_000;

    /** The tree factory for values built by code: the same exact decimals as the parser makes. */
    public static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

    private final ObjectMapper mapper;

    private ExactJson(int maxDepth) {
        mapper = new ObjectMapper()
                .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .setNodeFactory(new BoundedDecimals());
        mapper.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(maxDepth).build());
    }

    /** A reader and writer with nesting bounded by {@code maxDepth}; thread-safe, like any ObjectMapper. */
    public static ExactJson withDepth(int maxDepth) {
        return new ExactJson(maxDepth);
    }

    /**
     * The tree of {@code text}; null or a missing node for empty input (as Jackson's {@code readTree}). A number over
     * the bounds fails as {@link StreamConstraintsException}, as nesting does.
     */
    public JsonNode read(String text) throws IOException {
        try {
            return mapper.readTree(text);
        }
        catch (ExponentTooLarge e) {
            throw e.asConstraint();
        }
    }

    /** As {@link #read(String)}, from bytes (Jackson detects their Unicode encoding). */
    public JsonNode read(byte[] bytes) throws IOException {
        try {
            return mapper.readTree(bytes);
        }
        catch (ExponentTooLarge e) {
            throw e.asConstraint();
        }
    }

    /** As {@link #read(String)}, from a stream (not closed). */
    public JsonNode read(InputStream in) throws IOException {
        try {
            return mapper.readTree(in);
        }
        catch (ExponentTooLarge e) {
            throw e.asConstraint();
        }
    }

    /** The writer: compact JSON, decimals as they are held. */
    public ObjectMapper mapper() {
        return mapper;
    }

    /** Exact decimals, refusing an exponent over the bound while the tree is built (before anything uses the number). */
    private static final class BoundedDecimals extends JsonNodeFactory {
        BoundedDecimals() {
            super(true);
        }

        @Override
        public ValueNode numberNode(BigDecimal value) {
            if (value != null && Math.abs((long) value.scale()) > MAX_EXPONENT) {
                throw new ExponentTooLarge();
            }
            return super.numberNode(value);
        }
    }

    /** Unchecked only to pass through Jackson's tree building; {@link #read} turns it into the parser's own failure. */
    private static final class ExponentTooLarge extends RuntimeException {
        ExponentTooLarge() {
            super(null, null, false, false);
        }

        StreamConstraintsException asConstraint() {
            return new StreamConstraintsException("a number's exponent is beyond " + MAX_EXPONENT);
        }
    }
}
