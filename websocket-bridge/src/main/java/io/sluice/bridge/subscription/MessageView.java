package io.sluice.bridge.subscription;

import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.common.header.Header;

import io.sluice.bridge.selection.RecordView;
import io.sluice.bridge.protocol.EncodedMessage;
import io.sluice.bridge.protocol.MessageEncoder;

/**
 * A message as filters see it: {@code value} is the payload as the client receives it (the JSON object or array, the
 * text, the base64 of binary values, null for a tombstone), {@code key} the Kafka key as text, {@code headers} their
 * values as UTF-8 text (invalid bytes become U+FFFD). Each part is worked out once, when a filter first reads it: one
 * view serves every group that looks at the message.
 */
final class MessageView implements RecordView {

    private final EncodedMessage message;
    private JsonNode value;
    private JsonNode key;
    private ObjectNode headers;

    MessageView(EncodedMessage message) {
        this.message = message;
    }

    @Override
    public JsonNode value() {
        if (value == null) {
            value = MessageEncoder.payloadOf(message);
        }
        return value;
    }

    @Override
    public JsonNode key() {
        if (key == null) {
            key = message.recordKey() == null ? NullNode.getInstance() : JsonNodeFactory.instance.textNode(message.recordKey());
        }
        return key;
    }

    @Override
    public JsonNode header(String name) {
        Header[] all = message.headers();
        for (int i = all.length - 1; i >= 0; i--) {
            if (all[i].key().equals(name)) {
                return text(all[i]);
            }
        }
        return null;
    }

    @Override
    public JsonNode headers() {
        if (headers == null) {
            headers = JsonNodeFactory.instance.objectNode();
            for (Header header : message.headers()) {
                headers.set(header.key(), text(header)); // the last of a name wins, as in header(name)
            }
        }
        return headers;
    }

    private static JsonNode text(Header header) {
        byte[] bytes = header.value();
        return bytes == null ? NullNode.getInstance() : JsonNodeFactory.instance.textNode(new String(bytes, StandardCharsets.UTF_8));
    }
}
