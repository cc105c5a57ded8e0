package io.sluice.bridge.protocol;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;

/** Reads one client message (a text frame holding a JSON object) into a {@link ClientRequest}. */
public final class ClientRequests {

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    static {
        // Frame size is already bounded by server.maxInboundMessageBytes; nesting is what could still hurt.
        JSON.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build());
    }

    private ClientRequests() {
    }

    public static ClientRequest parse(ByteBuf text) throws ProtocolException {
        JsonNode node;
        try (ByteBufInputStream in = new ByteBufInputStream(text.duplicate())) {
            node = JSON.readTree(in);
        }
        catch (IOException e) {
            throw new ProtocolException(ErrorCodes.MALFORMED, "not a JSON object: " + firstLine(e.getMessage()), null);
        }
        if (node == null || !node.isObject()) {
            throw new ProtocolException(ErrorCodes.MALFORMED, "a message must be a JSON object", null);
        }
        Long id = id(node);
        String type = text(node, "type", id, true);
        return switch (type) {
            case "connect" -> new ClientRequest.Connect(id, text(node, "token", id, true));
            case "refresh" -> new ClientRequest.Refresh(id, text(node, "token", id, true));
            case "subscribe" -> new ClientRequest.Subscribe(id, text(node, "endpoint", id, true), positions(node, id),
                    bool(node, "snapshot", id), bool(node, "delta", id));
            case "unsubscribe" -> new ClientRequest.Unsubscribe(id, text(node, "endpoint", id, true));
            case "publish" -> publish(node, id);
            default -> throw new ProtocolException(ErrorCodes.UNKNOWN_TYPE, "unknown message type '" + type + "'", id);
        };
    }

    private static ClientRequest publish(JsonNode node, Long id) throws ProtocolException {
        String endpoint = text(node, "endpoint", id, true);
        JsonNode payload = node.get("payload");
        if (payload == null) {
            throw new ProtocolException(ErrorCodes.MALFORMED, "publish: payload is required", id);
        }
        String formatName = text(node, "format", id, false);
        PayloadFormat format;
        if (formatName == null) {
            format = payload.isNull() ? PayloadFormat.NONE : payload.isTextual() ? PayloadFormat.TEXT : PayloadFormat.JSON;
        }
        else {
            format = PayloadFormat.fromWire(formatName);
            if (format == null) {
                throw new ProtocolException(ErrorCodes.MALFORMED, "publish: format must be json, text, base64 or none", id);
            }
        }
        if ((format == PayloadFormat.TEXT || format == PayloadFormat.BASE64) && !payload.isTextual()) {
            throw new ProtocolException(ErrorCodes.MALFORMED, "publish: a " + format.wireName() + " payload must be a string", id);
        }
        if (format == PayloadFormat.BASE64 && !isBase64(payload.asText())) {
            throw new ProtocolException(ErrorCodes.MALFORMED, "publish: payload is not valid base64", id);
        }
        return new ClientRequest.Publish(id, endpoint, format, payload);
    }

    private static boolean isBase64(String text) {
        try {
            java.util.Base64.getDecoder().decode(text);
            return true;
        }
        catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static List<ClientRequest.Position> positions(JsonNode node, Long id) throws ProtocolException {
        JsonNode recover = node.get("recover");
        if (recover == null || recover.isNull()) {
            return List.of();
        }
        if (!recover.isArray()) {
            throw new ProtocolException(ErrorCodes.MALFORMED, "subscribe: recover must be a list of {epoch, seq}", id);
        }
        List<ClientRequest.Position> positions = new ArrayList<>();
        for (JsonNode p : recover) {
            JsonNode epoch = p.get("epoch");
            JsonNode seq = p.get("seq");
            if (epoch == null || !epoch.isTextual() || seq == null || !seq.canConvertToLong() || !seq.isIntegralNumber()) {
                throw new ProtocolException(ErrorCodes.MALFORMED, "subscribe: each recover entry needs a string epoch and an integer seq", id);
            }
            positions.add(new ClientRequest.Position(epoch.asText(), seq.asLong()));
        }
        return positions;
    }

    private static Long id(JsonNode node) throws ProtocolException {
        JsonNode id = node.get("id");
        if (id == null || id.isNull()) {
            return null;
        }
        if (!id.isIntegralNumber() || !id.canConvertToLong()) {
            throw new ProtocolException(ErrorCodes.MALFORMED, "id must be an integer", null);
        }
        return id.asLong();
    }

    private static String text(JsonNode node, String field, Long id, boolean required) throws ProtocolException {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            if (required) {
                throw new ProtocolException(ErrorCodes.MALFORMED, field + " is required", id);
            }
            return null;
        }
        if (!value.isTextual()) {
            throw new ProtocolException(ErrorCodes.MALFORMED, field + " must be a string", id);
        }
        return value.asText();
    }

    private static boolean bool(JsonNode node, String field, Long id) throws ProtocolException {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return false;
        }
        if (!value.isBoolean()) {
            throw new ProtocolException(ErrorCodes.MALFORMED, field + " must be true or false", id);
        }
        return value.asBoolean();
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
