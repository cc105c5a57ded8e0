package io.sluice.bridge.protocol;

import java.util.List;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Builds the bridge's replies and notices (everything except {@code message} and {@code delta}, which
 * {@link MessageEncoder} writes). These are per-connection and rare, so plain Jackson trees are fine here.
 */
public final class ServerMessages {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ServerMessages() {
    }

    public static byte[] connected(Long id, String node, String subject, Long expiresAt) {
        ObjectNode m = base("connected", id).put("node", node).put("subject", subject);
        if (expiresAt != null) {
            m.put("expiresAt", expiresAt);
        }
        return bytes(m);
    }

    public static byte[] refreshed(Long id, Long expiresAt) {
        ObjectNode m = base("refreshed", id);
        if (expiresAt != null) {
            m.put("expiresAt", expiresAt);
        }
        return bytes(m);
    }

    public static byte[] expiring(long expiresAt) {
        return bytes(base("expiring", null).put("expiresAt", expiresAt));
    }

    public static byte[] subscribed(Long id, String endpoint, List<ClientRequest.Position> positions) {
        ObjectNode m = base("subscribed", id).put("endpoint", endpoint);
        ArrayNode list = m.putArray("positions");
        positions.forEach(p -> list.addObject().put("epoch", p.epoch()).put("seq", p.seq()));
        return bytes(m);
    }

    public static byte[] unsubscribed(Long id, String endpoint, String reason) {
        ObjectNode m = base("unsubscribed", id).put("endpoint", endpoint);
        if (reason != null) {
            m.put("reason", reason);
        }
        return bytes(m);
    }

    /** Messages {@code fromSeq..toSeq} of a partition were missed and cannot be delivered. */
    public static byte[] gap(String subscription, String epoch, long fromSeq, long toSeq, String reason) {
        return bytes(base("gap", null).put("endpoint", subscription).put("epoch", epoch)
                .put("fromSeq", fromSeq).put("toSeq", toSeq).put("reason", reason));
    }

    /** {@code dropped} messages of the endpoint were skipped; the next message is its latest. */
    public static byte[] conflated(String endpoint, long dropped) {
        return bytes(base("conflated", null).put("endpoint", endpoint).put("dropped", dropped));
    }

    public static byte[] ack(Long id, String endpoint, String epoch, long seq) {
        return bytes(base("ack", id).put("endpoint", endpoint).put("epoch", epoch).put("seq", seq));
    }

    public static byte[] error(Long id, String code, String message) {
        return error(id, code, message, -1);
    }

    /** @param retryAfterMillis sent as {@code retryAfterMs} when not negative: when a retry can succeed */
    public static byte[] error(Long id, String code, String message, long retryAfterMillis) {
        ObjectNode m = base("error", id).put("code", code).put("message", message);
        if (retryAfterMillis >= 0) {
            m.put("retryAfterMs", retryAfterMillis);
        }
        return bytes(m);
    }

    private static ObjectNode base(String type, Long id) {
        ObjectNode m = JSON.createObjectNode().put("type", type);
        if (id != null) {
            m.put("id", id);
        }
        return m;
    }

    private static byte[] bytes(ObjectNode m) {
        try {
            return JSON.writeValueAsBytes(m);
        }
        catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
