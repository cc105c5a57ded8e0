package io.sluice.bridge.asyncapi;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The protocol's envelopes (docs/bridge-protocol.md) as AsyncAPI messages with JSON Schema payloads. */
final class Envelopes {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private Envelopes() {
    }

    /** {@code delta} and {@code gap}, the same for every channel. */
    static void shared(ObjectNode messages) {
        ObjectNode delta = object("delta");
        ObjectNode properties = (ObjectNode) delta.get("properties");
        properties.set("endpoint", string("the exact endpoint"));
        properties.set("epoch", string("the topic-partition and its history; compare for equality only"));
        properties.set("seq", integer("the record's Kafka offset"));
        properties.set("timestamp", integer("the Kafka record timestamp, epoch milliseconds"));
        properties.set("base", integer("the seq of the endpoint's message the patch applies to"));
        ObjectNode op = JSON.objectNode().put("type", "object");
        op.putObject("properties").<ObjectNode>set("op", JSON.objectNode().put("type", "string")
                        .set("enum", JSON.arrayNode().add("add").add("remove").add("replace")))
                .<ObjectNode>set("path", string("a JSON Pointer"))
                .set("value", JSON.objectNode().put("description", "any JSON value"));
        op.set("required", JSON.arrayNode().add("op").add("path"));
        properties.set("patch", JSON.objectNode().put("type", "array").put("description", "RFC 6902 JSON Patch")
                .set("items", op));
        required(delta, "type", "endpoint", "epoch", "seq", "timestamp", "base", "patch");
        messages.set("delta", message("delta", "A JSON Patch against the endpoint's previous payload (with `delta: true`)",
                delta));

        ObjectNode gap = object("gap");
        ObjectNode gapProperties = (ObjectNode) gap.get("properties");
        gapProperties.set("endpoint", string("the subscription's endpoint"));
        gapProperties.set("epoch", string("the topic-partition and its history"));
        gapProperties.set("fromSeq", integer("first offset not delivered"));
        gapProperties.set("toSeq", integer("last offset not delivered; -1 for unknown_epoch"));
        gapProperties.set("reason", JSON.objectNode().put("type", "string").set("enum", JSON.arrayNode()
                .add("retention").add("too_far_behind").add("unknown_epoch").add("recovery_failed").add("undecodable")));
        required(gap, "type", "endpoint", "epoch", "fromSeq", "toSeq", "reason");
        messages.set("gap", message("gap", "Records recovery or decoding could not deliver; what follows comes after them",
                gap));
    }

    /** A record of the channel's topic; {@code payloadKey} is the topic's value schema in components/schemas. */
    static ObjectNode message(String payloadKey) {
        ObjectNode envelope = object("message");
        ObjectNode properties = (ObjectNode) envelope.get("properties");
        properties.set("endpoint", string("the exact endpoint (also under a prefix subscription)"));
        properties.set("epoch", string("the topic-partition and its history; compare for equality only"));
        properties.set("seq", integer("the record's Kafka offset; increases within an epoch, with holes"));
        properties.set("timestamp", integer("the Kafka record timestamp, epoch milliseconds"));
        properties.set("format", JSON.objectNode().put("type", "string").put("description",
                "json for a decoded value; none for a tombstone (payload null)")
                .set("enum", JSON.arrayNode().add("json").add("text").add("base64").add("none")));
        properties.set("payload", payload(payloadKey, "the record value; null when format is none"));
        required(envelope, "type", "endpoint", "epoch", "seq", "timestamp", "format", "payload");
        return message("message", "A record of the endpoint", envelope);
    }

    /** A client's publish into the channel's topic. */
    static ObjectNode publish(String payloadKey) {
        ObjectNode envelope = object("publish");
        ObjectNode properties = (ObjectNode) envelope.get("properties");
        properties.set("id", integer("echoed in the ack or error"));
        properties.set("endpoint", string("an exact endpoint"));
        properties.set("format", JSON.objectNode().put("type", "string")
                .set("enum", JSON.arrayNode().add("json").add("text").add("base64").add("none")));
        properties.set("payload", payload(payloadKey, "the value to write; null writes a tombstone"));
        required(envelope, "type", "endpoint", "payload");
        return message("publish", "Writes one record; answered with ack {id, endpoint, epoch, seq} or error "
                + "(forbidden, invalid_payload, publish_failed, busy)", envelope);
    }

    private static ObjectNode payload(String payloadKey, String description) {
        ObjectNode node = JSON.objectNode().put("description", description);
        node.putArray("anyOf").add(AsyncApiGenerator.ref("#/components/schemas/" + payloadKey))
                .add(JSON.objectNode().put("type", "null"));
        return node;
    }

    private static ObjectNode message(String name, String summary, ObjectNode payload) {
        ObjectNode message = JSON.objectNode().put("name", name).put("title", name).put("summary", summary)
                .put("contentType", "application/json");
        message.set("payload", payload);
        return message;
    }

    private static ObjectNode object(String type) {
        ObjectNode node = JSON.objectNode().put("type", "object");
        node.putObject("properties").set("type", JSON.objectNode().put("const", type));
        return node;
    }

    private static void required(ObjectNode node, String... names) {
        ArrayNode required = node.putArray("required");
        for (String name : names) {
            required.add(name);
        }
    }

    private static ObjectNode string(String description) {
        return JSON.objectNode().put("type", "string").put("description", description);
    }

    private static ObjectNode integer(String description) {
        return JSON.objectNode().put("type", "integer").put("description", description);
    }
}
