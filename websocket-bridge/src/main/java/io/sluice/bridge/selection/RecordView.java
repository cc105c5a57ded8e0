package io.sluice.bridge.selection;

import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One record as filters see it, the object {@code {"value": ..., "key": ..., "headers": {...}}}, handed over in parts so
 * that evaluation never builds that object: a filter reads only the parts its pointers name, so a filter on
 * {@code /key} or {@code /headers/region} never makes the value be decoded if the implementation decodes lazily.
 * Implementations should decode each part at most once per record (several groups' filters read the same record).
 */
public interface RecordView {

    /** The decoded value; {@link NullNode} for a tombstone. Java null means "no such part" (nothing matches it). */
    JsonNode value();

    /** The decoded key; {@link NullNode} for a record without a key. */
    JsonNode key();

    /**
     * The header's value as UTF-8 text ({@code TextNode}), {@link NullNode} for a header with a null value, or Java null
     * when the record has no header of that name. With several headers of one name, the last one (Kafka's
     * {@code lastHeader}).
     */
    JsonNode header(String name);

    /** Every header as one object, as {@link #header} gives them; only read by a pointer that is exactly /headers. */
    JsonNode headers();

    /** A view of parts already decoded; {@code headers} values may be null (a header with a null value). */
    static RecordView of(JsonNode value, JsonNode key, Map<String, String> headers) {
        ObjectNode all = JsonNodeFactory.instance.objectNode();
        headers.forEach((name, text) -> all.set(name, text == null ? NullNode.getInstance() : all.textNode(text)));
        return new RecordView() {
            @Override
            public JsonNode value() {
                return value;
            }

            @Override
            public JsonNode key() {
                return key;
            }

            @Override
            public JsonNode header(String name) {
                return all.get(name);
            }

            @Override
            public JsonNode headers() {
                return all;
            }
        };
    }
}
