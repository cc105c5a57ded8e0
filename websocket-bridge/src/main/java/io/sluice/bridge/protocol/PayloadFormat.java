package io.sluice.bridge.protocol;

/**
 * How a payload travels inside a JSON message. The bridge picks one per message so that every payload arrives
 * exactly: JSON objects and arrays are embedded as they are, other UTF-8 text as a JSON string, anything else (binary)
 * as base64; a Kafka tombstone (no value) as {@code null}.
 */
public enum PayloadFormat {
    JSON("json"), TEXT("text"), BASE64("base64"), NONE("none");

    private final String wireName;

    PayloadFormat(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static PayloadFormat fromWire(String name) {
        for (PayloadFormat f : values()) {
            if (f.wireName.equals(name)) {
                return f;
            }
        }
        return null;
    }
}
