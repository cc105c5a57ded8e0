package io.sluice.results.read;

import java.nio.file.Path;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Typed reads of a result file's fields that fail with the file and the field's path in the message, e.g.
 * {@code runs/proxy/w.json: field 'publishRate[3]' must be a number, not "n/a"}.
 */
public final class JsonFields {

    private final Path file;

    public JsonFields(Path file) {
        this.file = file;
    }

    public JsonNode required(JsonNode parent, String path, String field) {
        JsonNode node = parent.get(field);
        if (node == null || node.isNull() || node.isMissingNode()) {
            throw fail(join(path, field), "is missing");
        }
        return node;
    }

    public Optional<JsonNode> optional(JsonNode parent, String field) {
        JsonNode node = parent.get(field);
        return node == null || node.isNull() || node.isMissingNode() ? Optional.empty() : Optional.of(node);
    }

    public double number(JsonNode parent, String path, String field) {
        return asNumber(required(parent, path, field), join(path, field));
    }

    public Optional<Double> optionalNumber(JsonNode parent, String path, String field) {
        return optional(parent, field).map(node -> asNumber(node, join(path, field)));
    }

    public long whole(JsonNode parent, String path, String field) {
        JsonNode node = required(parent, path, field);
        if (!node.canConvertToLong() || !node.isIntegralNumber()) {
            throw fail(join(path, field), "must be a whole number, not " + describe(node));
        }
        return node.asLong();
    }

    public String text(JsonNode parent, String path, String field) {
        JsonNode node = required(parent, path, field);
        if (!node.isTextual()) {
            throw fail(join(path, field), "must be a string, not " + describe(node));
        }
        return node.textValue();
    }

    public Optional<String> optionalText(JsonNode parent, String field) {
        return optional(parent, field).filter(JsonNode::isTextual).map(JsonNode::textValue);
    }

    /** An array of numbers with at least one element: a run that recorded no interval has nothing to size from. */
    public double[] numbers(JsonNode parent, String path, String field) {
        String where = join(path, field);
        JsonNode node = required(parent, path, field);
        if (!node.isArray()) {
            throw fail(where, "must be an array of numbers, not " + describe(node));
        }
        if (node.isEmpty()) {
            throw fail(where, "is empty: the run recorded no stats interval");
        }
        double[] values = new double[node.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = asNumber(node.get(i), where + "[" + i + "]");
        }
        return values;
    }

    public JsonNode array(JsonNode parent, String path, String field) {
        JsonNode node = required(parent, path, field);
        if (!node.isArray()) {
            throw fail(join(path, field), "must be an array, not " + describe(node));
        }
        return node;
    }

    public MalformedResultException fail(String fieldPath, String problem) {
        return new MalformedResultException(file, "field '" + fieldPath + "' " + problem);
    }

    private double asNumber(JsonNode node, String where) {
        if (!node.isNumber()) {
            throw fail(where, "must be a number, not " + describe(node));
        }
        double value = node.doubleValue();
        if (!Double.isFinite(value)) {
            throw fail(where, "must be finite, not " + value);
        }
        return value;
    }

    private static String join(String path, String field) {
        return path.isEmpty() ? field : path + "." + field;
    }

    private static String describe(JsonNode node) {
        String text = node.toString();
        return (text.length() > 40 ? text.substring(0, 40) + "..." : text) + " (" + node.getNodeType().name().toLowerCase() + ")";
    }
}
