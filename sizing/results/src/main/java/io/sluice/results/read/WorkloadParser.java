package io.sluice.results.read;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import io.sluice.results.Workload;

/** OMB workload definitions, from a {@code .workload.yaml} or the copy inside a run.json. */
public final class WorkloadParser {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private WorkloadParser() {
    }

    public static Workload read(Path file) {
        JsonNode root;
        try {
            root = YAML.readTree(Files.readString(file));
        } catch (IOException e) {
            throw new MalformedResultException(file, "is not a readable YAML workload: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new MalformedResultException(file, "must hold an OMB workload (a YAML mapping)");
        }
        return parse(root, new JsonFields(file), "");
    }

    static Workload parse(JsonNode node, JsonFields f, String path) {
        // YAML numbers may come as text ("5000") from hand-edited files; OMB's own parser accepts them, so do we.
        return new Workload(
                f.optionalText(node, "name").orElse(null),
                (int) wholeLenient(node, f, path, "topics", 1),
                (int) wholeLenient(node, f, path, "partitionsPerTopic", 1),
                (int) required(node, f, path, "messageSize"),
                f.optionalText(node, "payloadFile").orElse(null),
                (int) wholeLenient(node, f, path, "subscriptionsPerTopic", 1),
                (int) wholeLenient(node, f, path, "consumerPerSubscription", 1),
                (int) wholeLenient(node, f, path, "producersPerTopic", 1),
                required(node, f, path, "producerRate"),
                lenient(node, f, path, "consumerBacklogSizeGB", 0),
                lenient(node, f, path, "testDurationMinutes", 0),
                lenient(node, f, path, "warmupDurationMinutes", 0));
    }

    private static double required(JsonNode node, JsonFields f, String path, String field) {
        f.required(node, path, field);
        return lenient(node, f, path, field, 0);
    }

    private static long wholeLenient(JsonNode node, JsonFields f, String path, String field, long absent) {
        double value = lenient(node, f, path, field, absent);
        if (value != Math.rint(value) || value < 0) {
            throw f.fail(path.isEmpty() ? field : path + "." + field, "must be a whole number, not " + value);
        }
        return (long) value;
    }

    private static double lenient(JsonNode node, JsonFields f, String path, String field, double absent) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return absent;
        }
        if (value.isNumber()) {
            return value.doubleValue();
        }
        if (value.isTextual()) {
            try {
                return Double.parseDouble(value.textValue().trim());
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        throw f.fail(path.isEmpty() ? field : path + "." + field, "must be a number, not " + value);
    }
}
