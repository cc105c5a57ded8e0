package io.sluice.filter.audit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * One audit event: the fields every event has, in a fixed order ({@code version}, {@code type}, {@code time},
 * {@code virtualCluster}, {@code sessionId}, {@code clientAddress}, {@code principal}, each present, null when
 * unknown), then the fields of its type; serialised as one line of JSON. Values are strings, numbers, booleans, lists
 * and maps already made safe by {@link Secrets}: nothing here reads a request.
 */
final class AuditEvent {

    /** The {@code version} field: raised when a field changes meaning or goes away (adding fields does not). */
    static final int SCHEMA_VERSION = 1;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private final EventType type;
    private final String key;
    private final Map<String, Object> fields = new LinkedHashMap<>();

    /**
     * @param key what the Kafka sink keys the record by: the session id, so that a session's events stay in order in
     *            one partition (or the principal, for what spans sessions)
     */
    AuditEvent(EventType type, Instant time, String virtualCluster, String sessionId, String clientAddress, String principal, String key) {
        this.type = type;
        this.key = key;
        fields.put("version", SCHEMA_VERSION);
        fields.put("type", type.wireName());
        fields.put("time", formatTime(time));
        fields.put("virtualCluster", virtualCluster);
        fields.put("sessionId", sessionId);
        fields.put("clientAddress", clientAddress);
        fields.put("principal", principal);
    }

    /** UTC, to the millisecond, always with three digits: {@code 2026-12-01T09:30:00.000Z}. */
    static String formatTime(Instant time) {
        return TIME.format(time);
    }

    AuditEvent with(String field, Object value) {
        fields.put(field, value);
        return this;
    }

    EventType type() {
        return type;
    }

    String key() {
        return key;
    }

    Object field(String name) {
        return fields.get(name);
    }

    /** The event as one line of JSON, newline included, UTF-8. */
    byte[] line() {
        try {
            byte[] json = JSON.writeValueAsBytes(fields);
            byte[] line = new byte[json.length + 1];
            System.arraycopy(json, 0, line, 0, json.length);
            line[json.length] = '\n';
            return line;
        } catch (IOException e) {
            throw new UncheckedIOException("an audit event could not be serialised", e);
        }
    }
}
