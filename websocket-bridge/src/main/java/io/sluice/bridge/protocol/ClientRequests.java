package io.sluice.bridge.protocol;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.sluice.bridge.config.RequestLimitsConfig;
import io.sluice.format.ExactJson;
import io.sluice.bridge.selection.SubscriptionFilter;
import io.sluice.bridge.selection.FilterException;
import io.sluice.bridge.selection.FilterLimits;
import io.sluice.bridge.selection.Projection;

/**
 * Reads one client message (a text frame holding exactly one JSON object) into a {@link ClientRequest}, checking every
 * field's type and size: strings against {@link RequestLimitsConfig}, {@code recover} entries for shape, epoch length,
 * seq range and duplicates. What depends on the node's state (partitions, rates) is checked by the session.
 */
public final class ClientRequests {

    /**
     * Epochs are made by the server ({@code <22-character topic id>-<partition>}); anything much longer is not one, and
     * is refused before it is used as a map key or echoed in a gap notice.
     */
    public static final int MAX_EPOCH_CHARS = 64;

    // Frame size is already bounded by server.maxInboundMessageBytes; nesting is what could still hurt. Numbers exact
    // (ExactJson), as records are read: a filter literal is compared with them, a published payload written back.
    private static final ExactJson JSON = ExactJson.withDepth(64);

    private ClientRequests() {
    }

    public static ClientRequest parse(ByteBuf text, RequestLimitsConfig limits) throws RequestRefusedException {
        return parse(text, limits, FilterLimits.defaults());
    }

    public static ClientRequest parse(ByteBuf text, RequestLimitsConfig limits, FilterLimits filters) throws RequestRefusedException {
        JsonNode node;
        try (ByteBufInputStream in = new ByteBufInputStream(text.duplicate())) {
            node = JSON.read(in);
        }
        catch (IOException e) {
            throw new RequestRefusedException(ErrorCodes.MALFORMED, "not a JSON object: " + firstLine(e.getMessage()), null);
        }
        if (node == null || !node.isObject()) {
            throw new RequestRefusedException(ErrorCodes.MALFORMED, "a message must be a JSON object", null);
        }
        Long id = id(node);
        String type = text(node, "type", id, true);
        return switch (type) {
            case "connect" -> new ClientRequest.Connect(id, token(node, id, limits));
            case "refresh" -> new ClientRequest.Refresh(id, token(node, id, limits));
            case "subscribe" -> new ClientRequest.Subscribe(id, endpoint(node, id, limits), positions(node, id),
                    bool(node, "snapshot", id), bool(node, "delta", id), filter(node, id, filters), fields(node, id, filters));
            case "unsubscribe" -> new ClientRequest.Unsubscribe(id, endpoint(node, id, limits));
            case "publish" -> publish(node, id, limits);
            // Echoed only as far as a real type could go: it may be anything up to the frame size.
            default -> throw new RequestRefusedException(ErrorCodes.UNKNOWN_TYPE, "unknown message type '"
                    + (type.length() > 32 ? type.substring(0, 32) + "..." : type) + "'", id);
        };
    }

    /** The subscribe's {@code filter} (docs/bridge-filters.md), or null without one. */
    private static SubscriptionFilter filter(JsonNode node, Long id, FilterLimits limits) throws RequestRefusedException {
        JsonNode filter = node.get("filter");
        if (filter == null || filter.isNull()) {
            return null;
        }
        try {
            SubscriptionFilter parsed = SubscriptionFilter.parse(filter, limits);
            return parsed.isMatchAll() ? null : parsed;
        }
        catch (FilterException e) {
            throw new RequestRefusedException(e.code(), e.getMessage(), id);
        }
    }

    /** The subscribe's {@code fields}, or null without them. */
    private static Projection fields(JsonNode node, Long id, FilterLimits limits) throws RequestRefusedException {
        JsonNode fields = node.get("fields");
        if (fields == null || fields.isNull()) {
            return null;
        }
        try {
            return Projection.parse(fields, limits);
        }
        catch (FilterException e) {
            throw new RequestRefusedException(e.code(), e.getMessage(), id);
        }
    }

    private static String token(JsonNode node, Long id, RequestLimitsConfig limits) throws RequestRefusedException {
        return bounded(text(node, "token", id, true), "token", limits.maxTokenBytes(), id);
    }

    private static String endpoint(JsonNode node, Long id, RequestLimitsConfig limits) throws RequestRefusedException {
        return bounded(text(node, "endpoint", id, true), "endpoint", limits.maxEndpointBytes(), id);
    }

    private static String bounded(String value, String field, int maxBytes, Long id) throws RequestRefusedException {
        // Chars are at most 3 UTF-8 bytes each (a surrogate pair is 4 for 2), so most strings need no encoding to check.
        if (value.length() * 3L > maxBytes && value.getBytes(StandardCharsets.UTF_8).length > maxBytes) {
            throw new RequestRefusedException(ErrorCodes.MALFORMED, field + " is longer than " + maxBytes + " bytes", id);
        }
        return value;
    }

    private static ClientRequest publish(JsonNode node, Long id, RequestLimitsConfig limits) throws RequestRefusedException {
        String endpoint = endpoint(node, id, limits);
        JsonNode payload = node.get("payload");
        if (payload == null) {
            throw new RequestRefusedException(ErrorCodes.MALFORMED, "publish: payload is required", id);
        }
        String formatName = text(node, "format", id, false);
        PayloadFormat format;
        if (formatName == null) {
            format = payload.isNull() ? PayloadFormat.NONE : payload.isTextual() ? PayloadFormat.TEXT : PayloadFormat.JSON;
        }
        else {
            format = PayloadFormat.fromWire(formatName);
            if (format == null) {
                throw new RequestRefusedException(ErrorCodes.MALFORMED, "publish: format must be json, text, base64 or none", id);
            }
        }
        if ((format == PayloadFormat.TEXT || format == PayloadFormat.BASE64) && !payload.isTextual()) {
            throw new RequestRefusedException(ErrorCodes.MALFORMED, "publish: a " + format.wireName() + " payload must be a string", id);
        }
        if (format == PayloadFormat.BASE64 && !isBase64(payload.asText())) {
            throw new RequestRefusedException(ErrorCodes.MALFORMED, "publish: payload is not valid base64", id);
        }
        return new ClientRequest.Publish(id, endpoint, format, payload);
    }

    private static boolean isBase64(String text) {
        try {
            Base64.getDecoder().decode(text);
            return true;
        }
        catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static List<ClientRequest.Position> positions(JsonNode node, Long id) throws RequestRefusedException {
        JsonNode recover = node.get("recover");
        if (recover == null || recover.isNull()) {
            return List.of();
        }
        if (!recover.isArray()) {
            throw new RequestRefusedException(ErrorCodes.MALFORMED, "subscribe: recover must be a list of {epoch, seq}", id);
        }
        List<ClientRequest.Position> positions = new ArrayList<>();
        Set<String> epochs = new HashSet<>();
        for (JsonNode p : recover) {
            JsonNode epoch = p.get("epoch");
            JsonNode seq = p.get("seq");
            if (epoch == null || !epoch.isTextual() || seq == null || !seq.canConvertToLong() || !seq.isIntegralNumber()) {
                throw new RequestRefusedException(ErrorCodes.MALFORMED, "subscribe: each recover entry needs a string epoch and an integer seq", id);
            }
            if (epoch.asText().length() > MAX_EPOCH_CHARS) {
                throw new RequestRefusedException(ErrorCodes.MALFORMED, "subscribe: a recover epoch is longer than " + MAX_EPOCH_CHARS
                        + " characters; epochs are the server's, sent back unchanged", id);
            }
            if (seq.asLong() < -1) {
                throw new RequestRefusedException(ErrorCodes.MALFORMED, "subscribe: a recover seq is -1 or more", id);
            }
            if (!epochs.add(epoch.asText())) {
                throw new RequestRefusedException(ErrorCodes.MALFORMED, "subscribe: epoch " + epoch.asText() + " appears twice in recover", id);
            }
            positions.add(new ClientRequest.Position(epoch.asText(), seq.asLong()));
        }
        return positions;
    }

    private static Long id(JsonNode node) throws RequestRefusedException {
        JsonNode id = node.get("id");
        if (id == null || id.isNull()) {
            return null;
        }
        if (!id.isIntegralNumber() || !id.canConvertToLong()) {
            throw new RequestRefusedException(ErrorCodes.MALFORMED, "id must be an integer", null);
        }
        return id.asLong();
    }

    private static String text(JsonNode node, String field, Long id, boolean required) throws RequestRefusedException {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            if (required) {
                throw new RequestRefusedException(ErrorCodes.MALFORMED, field + " is required", id);
            }
            return null;
        }
        if (!value.isTextual()) {
            throw new RequestRefusedException(ErrorCodes.MALFORMED, field + " must be a string", id);
        }
        return value.asText();
    }

    private static boolean bool(JsonNode node, String field, Long id) throws RequestRefusedException {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return false;
        }
        if (!value.isBoolean()) {
            throw new RequestRefusedException(ErrorCodes.MALFORMED, field + " must be true or false", id);
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
