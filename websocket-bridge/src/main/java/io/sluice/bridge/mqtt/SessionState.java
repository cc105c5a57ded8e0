package io.sluice.bridge.mqtt;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One persistent session as it is written to the sessions topic (JSON, the record's value; its key is the
 * {@link SessionKey}): who last held it and until when it lives, the client's filters with their QoS, and per bridge
 * subscription the {@link Mark}s it recovers from. Unacknowledged QoS 1 deliveries are not stored as messages: they are
 * the part of a mark above {@code from}, recovered from the bridge's cache or the Kafka log like any missed message.
 *
 * @param generation    raised by every connection that takes the session, so a node can tell a newer holder
 * @param owner         the connection holding it ({@code node/uuid}), or the last one that did
 * @param connected     whether that connection was open when this was written
 * @param expirySeconds the session expiry interval in force
 * @param expiresAt     epoch milliseconds after which the session is gone (a tombstone), unless written again first
 * @param filters       MQTT topic filter to granted QoS, in the order they were subscribed
 * @param marks         bridge pattern to its positions, one mark per partition
 */
record SessionState(long generation, String owner, boolean connected, long expirySeconds, long expiresAt,
                    Map<String, Integer> filters, Map<String, List<Mark>> marks) {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int VERSION = 1;

    /**
     * A position in one partition: every message up to {@code from} is done; above it, up to {@code seen}, those in
     * {@code done} are done too and the others may have been sent (resent with DUP).
     */
    record Mark(String epoch, long from, long seen, List<Long> done) {
    }

    byte[] encode() {
        ObjectNode root = JSON.createObjectNode().put("v", VERSION).put("generation", generation).put("owner", owner)
                .put("connected", connected).put("expiry", expirySeconds).put("expiresAt", expiresAt);
        ArrayNode fs = root.putArray("filters");
        filters.forEach((filter, qos) -> fs.addObject().put("filter", filter).put("qos", qos));
        ObjectNode ps = root.putObject("patterns");
        marks.forEach((pattern, list) -> {
            ArrayNode ms = ps.putArray(pattern);
            for (Mark m : list) {
                ObjectNode o = ms.addObject().put("epoch", m.epoch()).put("from", m.from()).put("seen", m.seen());
                if (!m.done().isEmpty()) {
                    ArrayNode done = o.putArray("done");
                    m.done().forEach(done::add);
                }
            }
        });
        try {
            return JSON.writeValueAsBytes(root);
        }
        catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The state in a record's value; null when it is not one this version of the bridge wrote. */
    static SessionState decode(byte[] value) {
        try {
            JsonNode root = JSON.readTree(value);
            if (root == null || root.path("v").asInt() != VERSION) {
                return null;
            }
            Map<String, Integer> filters = new LinkedHashMap<>();
            for (JsonNode f : root.path("filters")) {
                filters.put(f.path("filter").asText(), f.path("qos").asInt());
            }
            Map<String, List<Mark>> marks = new LinkedHashMap<>();
            root.path("patterns").fields().forEachRemaining(e -> {
                List<Mark> list = new ArrayList<>();
                for (JsonNode m : e.getValue()) {
                    List<Long> done = new ArrayList<>();
                    m.path("done").forEach(d -> done.add(d.asLong()));
                    list.add(new Mark(m.path("epoch").asText(), m.path("from").asLong(), m.path("seen").asLong(), done));
                }
                marks.put(e.getKey(), list);
            });
            return new SessionState(root.path("generation").asLong(), root.path("owner").asText(), root.path("connected").asBoolean(),
                    root.path("expiry").asLong(), root.path("expiresAt").asLong(), filters, marks);
        }
        catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
