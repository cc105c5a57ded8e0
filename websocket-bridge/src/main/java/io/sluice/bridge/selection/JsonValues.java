package io.sluice.bridge.selection;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * JSON values as the filter language sees them: numbers by their mathematical value (1, 1.0 and 1E0 are one number,
 * whichever Jackson node type holds them), strings ordered by code point, objects equal regardless of member order,
 * and one canonical text per value for grouping.
 */
final class JsonValues {

    private static final double TWO_POW_63 = 9.223372036854775808E18;

    private JsonValues() {
    }

    /**
     * The number's value as a {@link Long} when it is an integer that fits, else as a {@link BigDecimal} without
     * trailing zeros; null for a non-number or a non-finite double. Two numbers are equal exactly when these are.
     */
    static Object numberKey(JsonNode node) {
        if (node == null || !node.isNumber()) {
            return null;
        }
        if (node.isIntegralNumber()) {
            return node.canConvertToLong() ? (Object) node.longValue() : new BigDecimal(node.bigIntegerValue());
        }
        if (node.isDouble() || node.isFloat()) {
            double d = node.doubleValue();
            if (!Double.isFinite(d)) {
                return null;
            }
            if (d == Math.rint(d) && d >= -TWO_POW_63 && d < TWO_POW_63) {
                return (long) d;
            }
            // The shortest decimal that reads back as this double: what the producer wrote, not its binary expansion.
            BigDecimal exact = node.isFloat() ? new BigDecimal(Float.toString(node.floatValue())) : BigDecimal.valueOf(d);
            return exact.stripTrailingZeros();
        }
        BigDecimal decimal = node.decimalValue().stripTrailingZeros();
        if (decimal.signum() == 0) {
            return 0L;
        }
        if (decimal.scale() <= 0 && decimal.precision() - decimal.scale() <= 19) {
            try {
                return decimal.longValueExact();
            }
            catch (ArithmeticException e) {
                return decimal; // 19 digits beyond Long's range
            }
        }
        return decimal;
    }

    /** Orders two number keys from {@link #numberKey}. */
    static int compareNumbers(Object a, Object b) {
        if (a instanceof Long x && b instanceof Long y) {
            return Long.compare(x, y);
        }
        return decimal(a).compareTo(decimal(b));
    }

    private static BigDecimal decimal(Object key) {
        return key instanceof Long l ? BigDecimal.valueOf(l) : (BigDecimal) key;
    }

    /** Orders two strings by Unicode code point (Java's compareTo orders UTF-16 units, which differs above U+FFFF). */
    static int compareStrings(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i);
            int y = b.codePointAt(j);
            if (x != y) {
                return Integer.compare(x, y);
            }
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        return Boolean.compare(i < a.length(), j < b.length());
    }

    /**
     * JSON equality of a record's node and a literal: same kind, numbers by value, objects with the same member names
     * (any order) and equal members, arrays element by element. The work is bounded by the literal's size: a large
     * record subtree is refused at its first difference in size.
     */
    static boolean equal(JsonNode node, JsonNode literal) {
        if (node == null) {
            return false;
        }
        if (literal.isNumber()) {
            Object key = numberKey(literal);
            return key != null && key.equals(numberKey(node));
        }
        if (literal.isTextual()) {
            return node.isTextual() && node.textValue().equals(literal.textValue());
        }
        if (literal.isBoolean()) {
            return node.isBoolean() && node.booleanValue() == literal.booleanValue();
        }
        if (literal.isNull()) {
            return node.isNull();
        }
        if (literal.isArray()) {
            if (!node.isArray() || node.size() != literal.size()) {
                return false;
            }
            for (int i = 0; i < literal.size(); i++) {
                if (!equal(node.get(i), literal.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (literal.isObject()) {
            if (!node.isObject() || node.size() != literal.size()) {
                return false;
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = literal.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> member = it.next();
                if (!equal(node.get(member.getKey()), member.getValue())) {
                    return false;
                }
            }
            return true;
        }
        return false;
    }

    /**
     * Appends the canonical text of a literal: compact JSON, numbers as {@link #numberKey} writes them (so 1.0 is
     * {@code 1} and 1.50 is {@code 1.5}), object members sorted by name, strings with JSON's standard escapes.
     */
    static void appendCanonical(JsonNode literal, StringBuilder out) {
        if (literal.isNumber()) {
            Object key = numberKey(literal);
            out.append(key instanceof BigDecimal d ? d.toString() : String.valueOf(key));
        }
        else if (literal.isTextual()) {
            appendString(literal.textValue(), out);
        }
        else if (literal.isArray()) {
            out.append('[');
            for (int i = 0; i < literal.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                appendCanonical(literal.get(i), out);
            }
            out.append(']');
        }
        else if (literal.isObject()) {
            List<String> names = new ArrayList<>(literal.size());
            literal.fieldNames().forEachRemaining(names::add);
            names.sort(JsonValues::compareStrings);
            out.append('{');
            for (int i = 0; i < names.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                appendString(names.get(i), out);
                out.append(':');
                appendCanonical(literal.get(names.get(i)), out);
            }
            out.append('}');
        }
        else {
            out.append(literal.isBoolean() ? String.valueOf(literal.booleanValue()) : "null");
        }
    }

    static void appendString(String text, StringBuilder out) {
        out.append('"');
        JsonStringEncoder.getInstance().quoteAsString(text, out);
        out.append('"');
    }
}
