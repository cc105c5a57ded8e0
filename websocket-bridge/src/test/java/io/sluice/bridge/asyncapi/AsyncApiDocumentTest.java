package io.sluice.bridge.asyncapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.bridge.client.NodeTools;
import io.sluice.bridge.config.BridgeConfig;
import io.sluice.bridge.config.BridgeConfigLoader;
import io.sluice.format.FormatLimits;
import io.sluice.format.Formats;
import io.sluice.format.registry.CachingSchemaSource;
import io.sluice.format.registry.RegistryConfig;
import io.sluice.format.registry.RegistryStandIn;
import io.sluice.format.registry.SchemaType;
import io.sluice.config.ConfigException;

/**
 * The generated AsyncAPI document, checked by the AsyncAPI initiative's own parser ({@code @asyncapi/parser}, pinned in
 * src/test/asyncapi/package-lock.json): no diagnostic of severity error, for local Avro and Protobuf schemas, plain
 * topics, a JSON Schema from the registry, and a registry that is down.
 */
class AsyncApiDocumentTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path CHECKER = Path.of("src/test/asyncapi").toAbsolutePath();

    @TempDir
    Path dir;

    @BeforeAll
    static void parserInstalled() throws Exception {
        NodeTools.requireNode();
        if (!Files.isRegularFile(CHECKER.resolve("node_modules/@asyncapi/parser/package.json"))) {
            Process npm = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund").directory(CHECKER.toFile())
                    .redirectErrorStream(true).start();
            String output = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!npm.waitFor(5, TimeUnit.MINUTES) || npm.exitValue() != 0) {
                fail("npm ci in " + CHECKER + " failed:\n" + output);
            }
        }
    }

    private static String resource(String name) throws URISyntaxException {
        return Path.of(AsyncApiDocumentTest.class.getResource("/asyncapi/" + name).toURI()).toString();
    }

    private static BridgeConfig config(String yaml) {
        return BridgeConfigLoader.parse(yaml, Map.of());
    }

    private String localFormats() throws URISyntaxException {
        return """
                kafka: {bootstrapServers: "localhost:9092"}
                topics: plain,orders,positions
                endpoints:
                  - {endpoint: /desk/*, topic: orders, key: "desk-*"}
                  - {endpoint: /positions/main, topic: positions, key: main}
                catalogue: {enabled: true}
                formats:
                  - topics: orders
                    value: {type: avro, schemaFile: "%s"}
                    key: {type: string}
                  - topics: positions
                    value: {type: protobuf, schemaFile: "%s", message: acme.Position}
                """.formatted(resource("order.avsc"), resource("position.proto"));
    }

    @Test
    void localAvroProtobufAndPlainTopicsMakeAValidDocument() throws Exception {
        BridgeConfig config = config(localFormats());
        Formats formats = Formats.build(config.formats(), null, FormatLimits.defaults());
        JsonNode doc = document(config, formats, "bridge.example.com:8443");

        assertThat(parserErrors(doc)).isEmpty();
        assertThat(doc.at("/servers/bridge/host").asText()).isEqualTo("bridge.example.com:8443");
        assertThat(doc.at("/servers/bridge/protocol").asText()).isEqualTo("ws");
        assertThat(doc.at("/channels/desk/address").asText()).isEqualTo("/desk/{key}");
        assertThat(doc.at("/channels/positions_main/address").asText()).isEqualTo("/positions/main");
        assertThat(doc.at("/operations/orders.receive/action").asText()).isEqualTo("receive");
        assertThat(doc.at("/operations/orders.send/action").asText()).isEqualTo("send");
        JsonNode schemas = doc.at("/components/schemas");
        // Avro: a record named in components, long as number-or-string, bytes base64, enum of symbols, union oneOf
        JsonNode order = schemas.get("orders.acme.Order");
        assertThat(schemas.get("orders.value").get("$ref").asText()).isEqualTo("#/components/schemas/orders.acme.Order");
        assertThat(order.at("/properties/id/oneOf/0/type").asText()).isEqualTo("integer");
        assertThat(order.at("/properties/id/oneOf/1/type").asText()).isEqualTo("string");
        assertThat(order.at("/properties/raw/contentEncoding").asText()).isEqualTo("base64");
        assertThat(order.at("/properties/price/type").asText()).isEqualTo("string");
        assertThat(schemas.get("orders.acme.Side").get("enum").toString()).isEqualTo("[\"BUY\",\"SELL\"]");
        assertThat(order.at("/properties/note/oneOf/0/type").asText()).isEqualTo("null");
        assertThat(order.at("/properties/next/oneOf/1/$ref").asText()).isEqualTo("#/components/schemas/orders.acme.Order");
        assertThat(order.get("required").toString()).contains("\"id\"").doesNotContain("\"note\"");
        // Protobuf: proto3 JSON, int64 as string, lowerCamel names, enum names, map, Timestamp
        JsonNode position = schemas.get("positions.acme.Position");
        assertThat(position.at("/properties/quantity/type").asText()).isEqualTo("string");
        assertThat(position.at("/properties/darkPool/type").asText()).isEqualTo("string");
        assertThat(position.at("/properties/blob/contentEncoding").asText()).isEqualTo("base64");
        assertThat(schemas.get("positions.acme.Position.Kind").get("enum").toString()).isEqualTo("[\"LONG\",\"SHORT\"]");
        assertThat(position.at("/properties/limits/additionalProperties/type").asText()).isEqualTo("integer");
        assertThat(position.at("/properties/at/format").asText()).isEqualTo("date-time");
        assertThat(position.at("/properties/children/items/$ref").asText()).isEqualTo("#/components/schemas/positions.acme.Position");
        // A topic without a format: any value
        assertThat(schemas.get("plain.value").has("type")).isFalse();
    }

    @Test
    void aJsonSchemaFromTheRegistryIsThePayloadSchemaAndItsReferencesPointIntoTheDocument() throws Exception {
        try (RegistryStandIn registry = RegistryStandIn.start();
             CachingSchemaSource source = CachingSchemaSource.create(RegistryConfig.of(registry.url()), new SimpleMeterRegistry())) {
            registry.register("prices-value", SchemaType.JSON, """
                    {"$schema": "http://json-schema.org/draft-07/schema#", "$id": "https://example.com/price.json",
                     "type": "object", "required": ["sku"],
                     "properties": {"sku": {"type": "string"}, "lines": {"type": "array", "items": {"$ref": "#/definitions/line"}}},
                     "definitions": {"line": {"type": "object", "properties": {"n": {"type": "integer", "maximum": 100}}}}}
                    """, List.of());
            BridgeConfig config = config("""
                    kafka: {bootstrapServers: "localhost:9092"}
                    topics: prices
                    schemaRegistry: {url: "%s"}
                    formats:
                      - topics: prices
                        value: {type: json-schema}
                    """.formatted(registry.url()));
            Formats formats = Formats.build(config.formats(), source, FormatLimits.defaults());
            JsonNode doc = document(config, formats, "localhost:8080");

            assertThat(parserErrors(doc)).isEmpty();
            JsonNode prices = doc.at("/components/schemas/prices.value");
            assertThat(prices.at("/required/0").asText()).isEqualTo("sku");
            assertThat(prices.at("/properties/lines/items/$ref").asText())
                    .isEqualTo("#/components/schemas/prices.value/definitions/line");
            assertThat(prices.has("$id")).isFalse();
        }
    }

    @Test
    void aRegistryThatIsDownStillYieldsAValidDocumentSayingSo() throws Exception {
        RegistryStandIn registry = RegistryStandIn.start();
        String url = registry.url();
        registry.close();
        try (CachingSchemaSource source = CachingSchemaSource.create(RegistryConfig.of(url), new SimpleMeterRegistry())) {
            BridgeConfig config = config("""
                    kafka: {bootstrapServers: "localhost:9092"}
                    topics: orders
                    schemaRegistry: {url: "%s", timeout: 1s}
                    formats:
                      - topics: orders
                        value: {type: avro}
                    """.formatted(url));
            Formats formats = Formats.build(config.formats(), source, FormatLimits.defaults());
            JsonNode doc = document(config, formats, "localhost:8080");

            assertThat(parserErrors(doc)).isEmpty();
            JsonNode orders = doc.at("/components/schemas/orders.value");
            assertThat(orders.has("type")).isFalse();
            // A fixed reason: the registry's address and why it failed are for the node's log, not for this public document.
            assertThat(orders.get("description").asText()).isEqualTo("Schema unavailable: the schema of subject orders-value could not be"
                    + " read from the schema registry or parsed (the node's log says why). Any JSON value.");
        }
    }

    @Test
    void beforeTheFirstRegistryAnswerRegistrySchemasAreDescribedAsNotFetchedYet() throws Exception {
        BridgeConfig config = config("""
                kafka: {bootstrapServers: "localhost:9092"}
                topics: orders
                schemaRegistry: {url: "http://127.0.0.1:1"}
                formats:
                  - topics: orders
                    value: {type: avro}
                """);
        try (CachingSchemaSource source = CachingSchemaSource.create(config.schemaRegistry(), new SimpleMeterRegistry())) {
            Formats formats = Formats.build(config.formats(), source, FormatLimits.defaults());
            JsonNode doc = JSON.readTree(AsyncApiGenerator.bytes(new AsyncApiGenerator(config, formats).generate(false)));
            assertThat(doc.at("/components/schemas/orders.value/description").asText()).contains("not been fetched");
        }
    }

    @Test
    void publicUrlIsTheServerAndAHostileHostHeaderIsNotEchoed() throws Exception {
        BridgeConfig config = config(localFormats().replace("catalogue: {enabled: true}",
                "catalogue: {enabled: true, publicUrl: \"wss://stream.example.com/live\"}"));
        Formats formats = Formats.build(config.formats(), null, FormatLimits.defaults());
        JsonNode doc = document(config, formats, "evil.example.com");
        assertThat(doc.at("/servers/bridge/host").asText()).isEqualTo("stream.example.com");
        assertThat(doc.at("/servers/bridge/protocol").asText()).isEqualTo("wss");
        assertThat(doc.at("/servers/bridge/pathname").asText()).isEqualTo("/live");

        BridgeConfig noUrl = config(localFormats());
        JsonNode hostile = document(noUrl, formats, "a\"b</script>");
        assertThat(hostile.at("/servers/bridge/host").asText()).isEqualTo("127.0.0.1:8080");
    }

    @Test
    void aBadPublicUrlIsRefusedNamingTheField() {
        try {
            config("kafka: {bootstrapServers: \"localhost:9092\"}\ntopics: a\ncatalogue: {enabled: true, publicUrl: \"http://x/ws\"}\n");
            fail("accepted");
        }
        catch (ConfigException e) {
            assertThat(e.problems()).contains("catalogue.publicUrl: must start with ws:// or wss://");
        }
    }

    /**
     * A GET costs a copy of bytes rendered once per build: many GETs (any Host, a hostile one included) render nothing,
     * and each gets its own host in servers, the rest of the document the same.
     */
    @Test
    void theDocumentIsRenderedOncePerBuildAndAGetOnlyCopiesItsBytes() throws Exception {
        BridgeConfig config = config("kafka: {bootstrapServers: \"localhost:9092\"}\ntopics: a,b\ncatalogue: {enabled: true}\n");
        Formats formats = Formats.build(config.formats(), null, FormatLimits.defaults());
        try (Catalogue catalogue = Catalogue.start(config, formats)) {
            // Built at start, then by the refresher at once (the next refresh is a minute later).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (catalogue.renders() < 2 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            int renders = catalogue.renders();
            assertThat(renders).isEqualTo(2);
            JsonNode first = JSON.readTree(catalogue.documentFor("one.example:443"));
            for (int i = 0; i < 100; i++) {
                catalogue.documentFor("host-" + i + ".example");
            }
            JsonNode hostile = JSON.readTree(catalogue.documentFor("evil\"}, \"x\": {\""));
            JsonNode second = JSON.readTree(catalogue.documentFor("[::1]:8080"));
            assertThat(catalogue.renders()).as("GETs render nothing").isEqualTo(renders);
            assertThat(first.at("/servers/bridge/host").asText()).isEqualTo("one.example:443");
            assertThat(second.at("/servers/bridge/host").asText()).isEqualTo("[::1]:8080");
            assertThat(hostile.at("/servers/bridge/host").asText()).doesNotContain("evil");
            ((com.fasterxml.jackson.databind.node.ObjectNode) second.at("/servers/bridge")).put("host", "one.example:443");
            assertThat(second).isEqualTo(first);
        }
    }

    private JsonNode document(BridgeConfig config, Formats formats, String host) throws IOException {
        try (Catalogue catalogue = Catalogue.start(config, formats)) {
            catalogue.refreshNow();
            return JSON.readTree(catalogue.documentFor(host));
        }
    }

    /** The parser's diagnostics of severity error (0), each as its JSON line. */
    private List<String> parserErrors(JsonNode doc) throws Exception {
        Path file = dir.resolve("asyncapi.json");
        Files.write(file, AsyncApiGenerator.bytes((com.fasterxml.jackson.databind.node.ObjectNode) doc));
        Process node = new ProcessBuilder("node", "validate.mjs", file.toString()).directory(CHECKER.toFile())
                .redirectErrorStream(true).start();
        String output = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(node.waitFor(2, TimeUnit.MINUTES)).isTrue();
        assertThat(node.exitValue()).as(output).isZero();
        List<String> errors = new ArrayList<>();
        for (String line : output.split("\n")) {
            if (line.startsWith("{\"severity\":0")) {
                errors.add(line);
            }
        }
        assertThat(output).as(output).contains("{\"parsed\":true}");
        return errors;
    }
}
