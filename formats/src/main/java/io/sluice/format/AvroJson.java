package io.sluice.format;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Avro values as the JSON clients see, and back (docs/bridge-formats.md, "Avro"). Not Avro's own JSON encoding: a union
 * is its value unwrapped, a long beyond 2^53-1 is a string (JavaScript numbers are exact only up to there), bytes and
 * fixed are base64, decimals are strings of the exact decimal, NaN and infinities are strings.
 */
final class AvroJson {

    /** The largest magnitude a JavaScript number holds exactly: 2^53 - 1. */
    static final long MAX_SAFE_INTEGER = (1L << 53) - 1;

    private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

    private final int maxDepth;

    AvroJson(int maxDepth) {
        this.maxDepth = maxDepth;
    }

    // ---- decode: Avro datum -> JSON ----

    JsonNode toJson(Object datum, Schema schema) throws DecodeException {
        return toJson(datum, schema, 0);
    }

    private JsonNode toJson(Object datum, Schema schema, int depth) throws DecodeException {
        switch (schema.getType()) {
            case NULL:
                return NODES.nullNode();
            case BOOLEAN:
                return NODES.booleanNode((Boolean) datum);
            case INT:
                return NODES.numberNode((Integer) datum);
            case LONG: {
                long v = (Long) datum;
                // Not Math.abs(v) <= MAX: Math.abs(Long.MIN_VALUE) is Long.MIN_VALUE, which would pass as a number.
                return v >= -MAX_SAFE_INTEGER && v <= MAX_SAFE_INTEGER ? NODES.numberNode(v) : NODES.textNode(Long.toString(v));
            }
            case FLOAT:
                return floating(((Float) datum).doubleValue(), true);
            case DOUBLE:
                return floating((Double) datum, false);
            case STRING:
                return NODES.textNode(datum.toString());
            case ENUM:
                return NODES.textNode(datum.toString());
            case BYTES: {
                ByteBuffer buffer = ((ByteBuffer) datum).duplicate();
                byte[] bytes = new byte[buffer.remaining()];
                buffer.get(bytes);
                return bytesOrDecimal(bytes, schema);
            }
            case FIXED:
                return bytesOrDecimal(((GenericData.Fixed) datum).bytes(), schema);
            case ARRAY: {
                deeper(depth);
                ArrayNode array = NODES.arrayNode();
                for (Object item : (Iterable<?>) datum) {
                    array.add(toJson(item, schema.getElementType(), depth + 1));
                }
                return array;
            }
            case MAP: {
                deeper(depth);
                ObjectNode object = NODES.objectNode();
                for (Map.Entry<?, ?> entry : ((Map<?, ?>) datum).entrySet()) {
                    object.set(entry.getKey().toString(), toJson(entry.getValue(), schema.getValueType(), depth + 1));
                }
                return object;
            }
            case RECORD: {
                deeper(depth);
                ObjectNode object = NODES.objectNode();
                GenericRecord record = (GenericRecord) datum;
                for (Schema.Field field : schema.getFields()) {
                    object.set(field.name(), toJson(record.get(field.pos()), field.schema(), depth + 1));
                }
                return object;
            }
            case UNION: {
                int branch = GenericData.get().resolveUnion(schema, datum);
                return toJson(datum, schema.getTypes().get(branch), depth);
            }
            default:
                throw new DecodeException("unsupported Avro type " + schema.getType());
        }
    }

    private void deeper(int depth) throws DecodeException {
        if (depth >= maxDepth) {
            throw new DecodeException("the value nests deeper than " + maxDepth + " levels");
        }
    }

    private static JsonNode floating(double v, boolean isFloat) {
        if (Double.isNaN(v)) {
            return NODES.textNode("NaN");
        }
        if (Double.isInfinite(v)) {
            return NODES.textNode(v > 0 ? "Infinity" : "-Infinity");
        }
        // A float printed as its own shortest decimal (1.1f, not 1.100000023841858).
        return isFloat ? NODES.numberNode(new BigDecimal(Float.toString((float) v))) : NODES.numberNode(v);
    }

    private static JsonNode bytesOrDecimal(byte[] bytes, Schema schema) throws DecodeException {
        if (schema.getLogicalType() instanceof LogicalTypes.Decimal decimal) {
            return NODES.textNode(AvroDecimals.toText(bytes, decimal));
        }
        return NODES.textNode(Base64.getEncoder().encodeToString(bytes));
    }

    // ---- encode: JSON -> Avro datum ----

    Object fromJson(JsonNode node, Schema schema) throws EncodeException {
        return fromJson(node, schema, "", 0);
    }

    private Object fromJson(JsonNode node, Schema schema, String path, int depth) throws EncodeException {
        switch (schema.getType()) {
            case NULL:
                if (node == null || node.isNull()) {
                    return null;
                }
                throw mismatch(path, "null", node);
            case BOOLEAN:
                if (node != null && node.isBoolean()) {
                    return node.booleanValue();
                }
                throw mismatch(path, "a boolean", node);
            case INT: {
                BigInteger v = integer(node, path, "an int", false);
                if (v.bitLength() > 31) {
                    throw new EncodeException(at(path) + ": " + v + " is out of range for an Avro int");
                }
                return v.intValue();
            }
            case LONG: {
                BigInteger v = integer(node, path, "a long", true);
                if (v.bitLength() > 63) {
                    throw new EncodeException(at(path) + ": " + v + " is out of range for an Avro long");
                }
                return v.longValue();
            }
            case FLOAT: {
                double v = floating(node, path);
                if (Double.isFinite(v) && Math.abs(v) > Float.MAX_VALUE) {
                    throw new EncodeException(at(path) + ": " + v + " is out of range for an Avro float");
                }
                return (float) v;
            }
            case DOUBLE:
                return floating(node, path);
            case STRING:
                if (node != null && node.isTextual()) {
                    return node.textValue();
                }
                throw mismatch(path, "a string", node);
            case ENUM:
                if (node != null && node.isTextual()) {
                    if (!schema.hasEnumSymbol(node.textValue())) {
                        throw new EncodeException(at(path) + ": unknown symbol \"" + clip(node.textValue())
                                + "\" of enum " + schema.getFullName());
                    }
                    return new GenericData.EnumSymbol(schema, node.textValue());
                }
                throw mismatch(path, "an enum symbol (string)", node);
            case BYTES:
                return ByteBuffer.wrap(bytesOrDecimal(node, schema, path));
            case FIXED: {
                byte[] bytes = bytesOrDecimal(node, schema, path);
                if (bytes.length != schema.getFixedSize()) {
                    throw new EncodeException(at(path) + ": " + bytes.length + " bytes where fixed "
                            + schema.getFullName() + " has " + schema.getFixedSize());
                }
                return new GenericData.Fixed(schema, bytes);
            }
            case ARRAY: {
                if (node == null || !node.isArray()) {
                    throw mismatch(path, "an array", node);
                }
                deeper(depth, path);
                List<Object> items = new ArrayList<>(node.size());
                for (int i = 0; i < node.size(); i++) {
                    items.add(fromJson(node.get(i), schema.getElementType(), path + "/" + i, depth + 1));
                }
                return new GenericData.Array<>(schema, items);
            }
            case MAP: {
                if (node == null || !node.isObject()) {
                    throw mismatch(path, "an object (map)", node);
                }
                deeper(depth, path);
                Map<String, Object> map = new HashMap<>();
                for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> entry = it.next();
                    map.put(entry.getKey(), fromJson(entry.getValue(), schema.getValueType(),
                            path + "/" + escape(entry.getKey()), depth + 1));
                }
                return map;
            }
            case RECORD:
                return record(node, schema, path, depth);
            case UNION:
                return union(node, schema, path, depth);
            default:
                throw new EncodeException(at(path) + ": unsupported Avro type " + schema.getType());
        }
    }

    private Object record(JsonNode node, Schema schema, String path, int depth) throws EncodeException {
        if (node == null || !node.isObject()) {
            throw mismatch(path, "an object (record " + schema.getFullName() + ")", node);
        }
        deeper(depth, path);
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (schema.getField(name) == null) {
                throw new EncodeException(at(path + "/" + escape(name)) + ": no such field in record "
                        + schema.getFullName());
            }
        }
        GenericData.Record record = new GenericData.Record(schema);
        for (Schema.Field field : schema.getFields()) {
            JsonNode value = node.get(field.name());
            String fieldPath = path + "/" + escape(field.name());
            if (value == null) {
                if (!field.hasDefaultValue()) {
                    throw new EncodeException(at(fieldPath) + ": missing required field");
                }
                record.put(field.pos(), GenericData.get().getDefaultValue(field));
            }
            else {
                record.put(field.pos(), fromJson(value, field.schema(), fieldPath, depth + 1));
            }
        }
        return record;
    }

    /** The first branch, in schema order, that the value fits. */
    private Object union(JsonNode node, Schema schema, String path, int depth) throws EncodeException {
        EncodeException first = null;
        for (Schema branch : schema.getTypes()) {
            try {
                return fromJson(node, branch, path, depth);
            }
            catch (EncodeException e) {
                if (first == null && branch.getType() != Schema.Type.NULL) {
                    first = e;
                }
            }
        }
        List<String> names = new ArrayList<>();
        for (Schema branch : schema.getTypes()) {
            names.add(branch.getType() == Schema.Type.RECORD || branch.getType() == Schema.Type.ENUM
                    || branch.getType() == Schema.Type.FIXED ? branch.getFullName() : branch.getType().getName());
        }
        throw new EncodeException(at(path) + ": fits no branch of the union " + names
                + (first == null ? "" : " (" + first.getMessage() + ")"));
    }

    private void deeper(int depth, String path) throws EncodeException {
        if (depth >= maxDepth) {
            throw new EncodeException(at(path) + ": the value nests deeper than " + maxDepth + " levels");
        }
    }

    /** An integral JSON number, or (for longs, which decode as strings beyond 2^53) a string of one. */
    private static BigInteger integer(JsonNode node, String path, String expected, boolean textAllowed)
            throws EncodeException {
        if (node != null && node.isIntegralNumber()) {
            return node.bigIntegerValue();
        }
        if (node != null && node.isNumber()) {
            BigDecimal d = node.decimalValue();
            try {
                return d.toBigIntegerExact();
            }
            catch (ArithmeticException e) {
                throw new EncodeException(at(path) + ": " + clip(d.toString()) + " is not an integer");
            }
        }
        if (textAllowed && node != null && node.isTextual()) {
            String text = node.textValue();
            if (text.length() <= 20 && text.matches("-?[0-9]+")) {
                return new BigInteger(text);
            }
        }
        throw mismatch(path, expected, node);
    }

    private static double floating(JsonNode node, String path) throws EncodeException {
        if (node != null && node.isNumber()) {
            return node.doubleValue();
        }
        if (node != null && node.isTextual()) {
            switch (node.textValue()) {
                case "NaN":
                    return Double.NaN;
                case "Infinity":
                    return Double.POSITIVE_INFINITY;
                case "-Infinity":
                    return Double.NEGATIVE_INFINITY;
                default:
                    break;
            }
        }
        throw mismatch(path, "a number", node);
    }

    private static byte[] bytesOrDecimal(JsonNode node, Schema schema, String path) throws EncodeException {
        LogicalType logical = schema.getLogicalType();
        if (!(logical instanceof LogicalTypes.Decimal decimal)) {
            return JsonTypes.base64(node, at(path));
        }
        String unusable = AvroDecimals.unusable(decimal);
        if (unusable != null) {
            // Before setScale: a scale of 2^31-1 would multiply by 10^(2^31-1).
            throw new EncodeException(at(path) + ": " + unusable);
        }
        BigDecimal value;
        try {
            if (node != null && node.isNumber()) {
                value = node.decimalValue();
            }
            else if (node != null && node.isTextual() && node.textValue().length() <= 100) {
                value = new BigDecimal(node.textValue());
            }
            else {
                throw mismatch(path, "a decimal (string or number)", node);
            }
        }
        catch (NumberFormatException e) {
            throw new EncodeException(at(path) + ": not a decimal number");
        }
        BigDecimal scaled;
        try {
            scaled = value.setScale(decimal.getScale());
        }
        catch (ArithmeticException e) {
            throw new EncodeException(at(path) + ": more than " + decimal.getScale() + " decimal places");
        }
        if (scaled.precision() > decimal.getPrecision()) {
            throw new EncodeException(at(path) + ": more than " + decimal.getPrecision() + " digits");
        }
        byte[] unscaled = scaled.unscaledValue().toByteArray();
        if (schema.getType() == Schema.Type.FIXED) {
            int size = schema.getFixedSize();
            if (unscaled.length > size) {
                throw new EncodeException(at(path) + ": does not fit " + size + " bytes");
            }
            byte[] padded = new byte[size];
            byte fill = (byte) (scaled.signum() < 0 ? 0xff : 0);
            java.util.Arrays.fill(padded, 0, size - unscaled.length, fill);
            System.arraycopy(unscaled, 0, padded, size - unscaled.length, unscaled.length);
            return padded;
        }
        return unscaled;
    }

    private static EncodeException mismatch(String path, String expected, JsonNode got) {
        return new EncodeException(at(path) + ": expected " + expected + ", got " + JsonTypes.describe(got));
    }

    static String at(String path) {
        return path.isEmpty() ? "/" : path;
    }

    /** A JSON Pointer segment (RFC 6901). */
    static String escape(String name) {
        return clip(name.replace("~", "~0").replace("/", "~1"));
    }

    private static String clip(String text) {
        return text.length() > 64 ? text.substring(0, 64) + "..." : text;
    }
}
