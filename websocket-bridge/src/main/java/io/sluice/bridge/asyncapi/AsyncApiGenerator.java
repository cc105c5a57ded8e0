package io.sluice.bridge.asyncapi;

import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.bridge.config.BridgeConfig;
import io.sluice.bridge.config.EndpointMapping;
import io.sluice.format.AvroCodec;
import io.sluice.format.Codec;
import io.sluice.format.CodecConfig;
import io.sluice.format.FormatRule;
import io.sluice.format.Formats;
import io.sluice.format.JsonSchemaCodec;
import io.sluice.format.ProtobufCodec;
import io.sluice.format.SchemaLookupException;
import io.sluice.build.BuildInfo;
import io.sluice.logging.RateLimitedLog;

/**
 * Builds the AsyncAPI 3.0.0 document of a node's configuration: one channel per endpoint mapping, a receive and a send
 * operation on each, the protocol's envelopes (message, delta, gap; publish) with each topic's payload schema from its
 * format, and the token model as the security scheme. The {@code servers} section depends on the request (its Host)
 * and is added by {@link Catalogue}. Schemas that come from the registry are asked for only when {@code withRegistry}
 * is set; a schema that cannot be had leaves the payload {@code {}} with a description saying why.
 */
public final class AsyncApiGenerator {

    private static final Logger LOG = LoggerFactory.getLogger(AsyncApiGenerator.class);
    // One line per topic per refresh at most anyway; the limit keeps a node with many topics and a registry down quiet.
    private static final RateLimitedLog LOOKUP_FAILURES = new RateLimitedLog(LOG);
    /**
     * What the document says of a schema it could not have: fixed, but for the subject. The document is served before any token, and the
     * reasons (the codec's, the registry client's) name the registry's address, its TLS failure or its answer, which
     * are the operator's to read in the log, not a visitor's.
     */
    static String unavailable(String topic) {
        return "the schema of subject " + topic + "-value could not be read from the schema registry or parsed (the node's log says why)";
    }
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final ObjectMapper MAPPER = new ObjectMapper();
    static final String SECURITY_SCHEME = "sluiceJwt";

    private final BridgeConfig config;
    private final Formats formats;

    public AsyncApiGenerator(BridgeConfig config, Formats formats) {
        this.config = config;
        this.formats = formats;
    }

    /** The document without {@code servers}; {@code withRegistry} false describes registry schemas as not fetched yet. */
    public ObjectNode generate(boolean withRegistry) {
        ObjectNode doc = JSON.objectNode().put("asyncapi", "3.0.0");
        doc.putObject("info")
                .put("title", "Sluice WebSocket bridge")
                .put("version", BuildInfo.current().version())
                .put("description", "The endpoints of Sluice bridge node " + config.server().nodeName() + ". Clients "
                        + "connect over WebSocket, send `connect` with a JWT, then `subscribe` to endpoints and "
                        + "`publish` to them (docs/bridge-protocol.md). Generated from the node's configuration.");
        doc.put("defaultContentType", "application/json");
        ObjectNode channels = doc.putObject("channels");
        ObjectNode operations = doc.putObject("operations");
        ObjectNode components = doc.putObject("components");
        Map<String, JsonNode> schemas = new TreeMap<>();
        ObjectNode messages = components.putObject("messages");
        Envelopes.shared(messages);
        Set<String> ids = new HashSet<>();
        Map<String, String> payloadKeys = new TreeMap<>();
        for (EndpointMapping mapping : config.mappings()) {
            String id = channelId(mapping, ids);
            String payloadKey = payloadKeys.computeIfAbsent(mapping.topic(),
                    topic -> payload(topic, schemas, withRegistry));
            channels.set(id, channel(mapping, id, payloadKey, messages));
            operations.set(id + ".receive", operation("receive", id, List.of("message", "delta", "gap"),
                    "Subscribe (`subscribe`) to " + mapping.endpoint() + " or an endpoint under it: records of topic "
                            + mapping.topic() + " arrive as `message` (or `delta` with `delta: true`); `gap` says "
                            + "what recovery could not deliver. Needs read permission on the topic or key."));
            operations.set(id + ".send", operation("send", id, List.of("publish"),
                    "Publish (`publish`) to an exact endpoint: written to topic " + mapping.topic()
                            + " with acks=all, answered with `ack` or `error`. Needs write permission."));
        }
        ObjectNode schemaNode = components.putObject("schemas");
        schemas.forEach(schemaNode::set);
        components.putObject("securitySchemes").set(SECURITY_SCHEME, Security.scheme(config));
        return doc;
    }

    /** The document as JSON bytes. */
    public static byte[] bytes(ObjectNode document) {
        try {
            return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(document);
        }
        catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code /scores/live/*} -> {@code scores_live}; ids are unique (channel ids allow letters, digits, - and _). */
    private static String channelId(EndpointMapping mapping, Set<String> taken) {
        String base = mapping.endpointPrefix().replaceAll("[^A-Za-z0-9]+", "_").replaceAll("^_+|_+$", "");
        base = base.isEmpty() ? "root" : base;
        String id = base;
        for (int i = 2; !taken.add(id); i++) {
            id = base + "_" + i;
        }
        return id;
    }

    private ObjectNode channel(EndpointMapping mapping, String id, String payloadKey, ObjectNode messages) {
        ObjectNode channel = JSON.objectNode();
        String keyFormat = keyFormat(mapping.topic());
        if (mapping.prefix()) {
            channel.put("address", mapping.endpointPrefix() + "{key}");
            channel.putObject("parameters").putObject("key").put("description", "The rest of the Kafka record key after '"
                    + mapping.keyPrefix() + "' (it may contain '/'). Subscribe to an exact endpoint, or to '"
                    + mapping.endpoint() + "' or any '.../*' under it for every key it covers." + keyFormat);
        }
        else {
            channel.put("address", mapping.endpoint());
        }
        channel.put("title", mapping.endpoint());
        channel.put("description", "Topic " + mapping.topic() + ", key " + (mapping.prefix()
                ? "'" + mapping.keyPrefix() + "' followed by the endpoint's rest" : "'" + mapping.key() + "'")
                + ". Value format: " + valueFormat(mapping.topic()) + "." + keyFormat);
        messages.set(id + ".message", Envelopes.message(payloadKey));
        messages.set(id + ".publish", Envelopes.publish(payloadKey));
        ObjectNode channelMessages = channel.putObject("messages");
        channelMessages.set("message", ref("#/components/messages/" + id + ".message"));
        channelMessages.set("delta", ref("#/components/messages/delta"));
        channelMessages.set("gap", ref("#/components/messages/gap"));
        channelMessages.set("publish", ref("#/components/messages/" + id + ".publish"));
        return channel;
    }

    private static ObjectNode operation(String action, String channelId, List<String> messages, String description) {
        ObjectNode operation = JSON.objectNode().put("action", action);
        operation.set("channel", ref("#/channels/" + channelId));
        operation.put("description", description);
        ArrayNode refs = operation.putArray("messages");
        messages.forEach(m -> refs.add(ref("#/channels/" + channelId + "/messages/" + m)));
        operation.putArray("security").add(ref("#/components/securitySchemes/" + SECURITY_SCHEME));
        return operation;
    }

    static ObjectNode ref(String to) {
        return JSON.objectNode().put("$ref", to);
    }

    private FormatRule rule(String topic) {
        return config.formats().stream().filter(r -> r.topics() != null && topic.matches(r.topics())).findFirst().orElse(null);
    }

    private String valueFormat(String topic) {
        FormatRule rule = rule(topic);
        if (rule == null || rule.value() == null) {
            return "as produced (JSON when the bytes are one JSON object or array, else text, else base64)";
        }
        CodecConfig value = rule.value();
        return value.type() + (value.registry() ? " (Confluent wire format, schema from the registry, subject " + topic + "-value)"
                : value.schemaFile() != null ? " (local schema)" : "") + ", decoded to JSON (docs/bridge-formats.md)";
    }

    private String keyFormat(String topic) {
        FormatRule rule = rule(topic);
        return rule == null || rule.key() == null ? "" : " Keys are " + rule.key().type() + ", routed by their decoded text.";
    }

    /** Puts the topic's value schema into {@code schemas} and returns its key there. */
    private String payload(String topic, Map<String, JsonNode> schemas, boolean withRegistry) {
        SchemaSink sink = new SchemaSink(schemas, topic);
        String key = sink.key("value");
        FormatRule rule = rule(topic);
        Formats.TopicFormat format = formats.forTopic(topic);
        Codec codec = format == null ? null : format.value();
        if (rule == null || rule.value() == null || codec == null) {
            schemas.put(key, JSON.objectNode().put("description", "The record value as produced: a JSON object or "
                    + "array (format json), a string (format text), base64 (format base64), or null (format none, a tombstone)."));
            return key;
        }
        if (rule.value().registry() && !withRegistry) {
            schemas.put(key, unknown("the schema of subject " + topic + "-value has not been fetched from the registry yet"));
            return key;
        }
        try {
            JsonNode schema;
            if (codec instanceof AvroCodec avro) {
                schema = new AvroJsonSchemas(sink).of(avro.publishSchema(topic));
            }
            else if (codec instanceof ProtobufCodec protobuf) {
                schema = new ProtobufJsonSchemas(sink, protobuf.preservingProtoFieldNames()).of(protobuf.publishType(topic));
            }
            else if (codec instanceof JsonSchemaCodec jsonSchema) {
                schema = embedded(jsonSchema.publishSchemaText(topic), key);
            }
            else {
                schema = schemaOfSimple(rule.value().type());
            }
            schemas.put(key, schema);
        }
        catch (SchemaLookupException e) {
            LOOKUP_FAILURES.log("AsyncAPI document: no payload schema for topic {}: {}", topic, e.getMessage());
            schemas.put(key, unknown(unavailable(topic)));
        }
        return key;
    }

    private static JsonNode schemaOfSimple(String type) {
        return switch (type) {
            case "string" -> AvroJsonSchemas.type("string");
            case "bytes" -> AvroJsonSchemas.base64("The record's bytes");
            default -> JSON.objectNode().put("description", "Any JSON value");
        };
    }

    private static JsonNode unknown(String why) {
        return JSON.objectNode().put("description", "Schema unavailable: " + why + ". Any JSON value.");
    }

    /**
     * A JSON Schema as the payload schema. Its own {@code #...} references are rewritten to where it stands in the
     * document (AsyncAPI resolves them against the whole document); {@code $id} and {@code $schema} are dropped, so the
     * parser neither fetches nor re-bases anything. References to other schemas (registry references) stay as they are.
     */
    private static JsonNode embedded(String text, String key) throws SchemaLookupException {
        JsonNode schema;
        try {
            schema = MAPPER.readTree(text);
        }
        catch (JsonProcessingException e) {
            throw new SchemaLookupException("the JSON Schema is not JSON");
        }
        if (!(schema instanceof ObjectNode object)) {
            return schema;
        }
        object.remove("$id");
        object.remove("$schema");
        rebase(object, "#/components/schemas/" + key);
        return object;
    }

    private static void rebase(JsonNode node, String base) {
        if (node instanceof ObjectNode object) {
            JsonNode ref = object.get("$ref");
            if (ref != null && ref.isTextual() && ref.asText().startsWith("#")) {
                object.set("$ref", TextNode.valueOf(base + ref.asText().substring(1)));
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                if (!field.getKey().equals("$ref")) {
                    rebase(field.getValue(), base);
                }
            }
        }
        else if (node instanceof ArrayNode array) {
            array.forEach(child -> rebase(child, base));
        }
    }
}
