package io.sluice.results.read;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Reads an OMB result file, or the bench's in OMB's format, checking every field the sizing relies on. */
public final class OmbResultReader {

    private static final ObjectMapper JSON = new ObjectMapper();

    private OmbResultReader() {
    }

    public static OmbResult read(Path file) {
        JsonNode root = parse(file);
        JsonFields f = new JsonFields(file);
        double[] publish = f.numbers(root, "", "publishRate");
        double[] consume = f.numbers(root, "", "consumeRate");
        double[] errors = f.optional(root, "publishErrorRate").isPresent() ? f.numbers(root, "", "publishErrorRate") : new double[0];
        double[] backlog = f.optional(root, "backlog").isPresent() ? f.numbers(root, "", "backlog") : new double[0];
        // OMB appends to every series once per interval; arrays of different lengths mean a file cut short or edited.
        if (consume.length != publish.length) {
            throw new MalformedResultException(file, "field 'consumeRate' has " + consume.length + " intervals but 'publishRate' has "
                    + publish.length + ": the file is partial or was edited");
        }
        long messageSize = f.whole(root, "", "messageSize");
        if (messageSize <= 0) {
            throw f.fail("messageSize", "must be positive, not " + messageSize);
        }
        return new OmbResult(
                f.text(root, "", "workload"),
                f.optionalText(root, "driver").orElse("unknown"),
                (int) messageSize,
                (int) f.whole(root, "", "topics"),
                (int) f.whole(root, "", "partitions"),
                publish, errors, consume, backlog,
                f.number(root, "", "aggregatedPublishLatency50pct"),
                f.number(root, "", "aggregatedPublishLatency99pct"),
                f.optionalNumber(root, "", "aggregatedPublishDelayLatency50pct"),
                f.optionalNumber(root, "", "aggregatedEndToEndLatency99pct"));
    }

    public static JsonNode parse(Path file) {
        try {
            JsonNode root = JSON.readTree(Files.readString(file));
            if (root == null || root.isMissingNode()) {
                throw new MalformedResultException(file, "is empty");
            }
            if (!root.isObject()) {
                throw new MalformedResultException(file, "must hold a JSON object, not " + root.getNodeType().name().toLowerCase());
            }
            return root;
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
            throw new MalformedResultException(file, "is not valid JSON" + where + " (" + e.getOriginalMessage() + "); a run still being written or cut short?", e);
        } catch (IOException e) {
            throw new MalformedResultException(file, "cannot be read: " + e, e);
        }
    }
}
