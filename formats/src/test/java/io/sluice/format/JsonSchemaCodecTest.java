package io.sluice.format;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;

import io.sluice.format.registry.SchemaReference;
import io.sluice.format.registry.SchemaType;
import io.sluice.testkit.HttpStandIn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JsonSchemaCodecTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    static final String ORDER = """
            {"type": "object", "required": ["id", "lines"], "additionalProperties": false,
             "properties": {"id": {"type": "integer"}, "side": {"enum": ["BUY", "SELL"]},
                            "lines": {"type": "array", "items": {"$ref": "line.json"}}}}""";
    static final String LINE = """
            {"type": "object", "required": ["sku"], "properties": {"sku": {"type": "string"}, "n": {"type": "integer",
             "maximum": 100}}}""";

    private final InMemorySchemas registry = new InMemorySchemas();

    @Test
    void publishValidatesAgainstTheLatestSchemaWithReferencesAndNamesTheField() throws Exception {
        registry.register("line", SchemaType.JSON, LINE);
        int id = registry.register("orders-value", SchemaType.JSON, ORDER, new SchemaReference("line.json", "line", 1)).id();
        JsonSchemaCodec codec = JsonSchemaCodec.registry(registry, RecordPart.VALUE, FormatLimits.defaults());

        byte[] bytes = codec.encode("orders", JSON.readTree("{\"id\": 1, \"lines\": [{\"sku\": \"a\", \"n\": 2}]}"));
        assertThat(ConfluentWireFormat.schemaId(bytes)).isEqualTo(id);
        assertThat(new String(Arrays.copyOfRange(bytes, 5, bytes.length), StandardCharsets.UTF_8))
                .isEqualTo("{\"id\":1,\"lines\":[{\"sku\":\"a\",\"n\":2}]}");
        assertThat(codec.decode("orders", bytes)).isEqualTo(JSON.readTree("{\"id\": 1, \"lines\": [{\"sku\": \"a\", \"n\": 2}]}"));

        assertThatThrownBy(() -> codec.encode("orders", JSON.readTree("{\"id\": 1, \"lines\": [{\"sku\": \"a\", \"n\": 200}]}")))
                .isInstanceOf(EncodeException.class).hasMessageContaining("lines").hasMessageContaining("n")
                .hasMessageContaining("100");
        assertThatThrownBy(() -> codec.encode("orders", JSON.readTree("{\"lines\": []}")))
                .isInstanceOf(EncodeException.class).hasMessageContaining("id");
        assertThatThrownBy(() -> codec.encode("orders", JSON.readTree("{\"id\": \"x\", \"lines\": []}")))
                .isInstanceOf(EncodeException.class).hasMessageContaining("id");
        assertThatThrownBy(() -> codec.encode("orders", JSON.readTree("{\"id\": 1, \"side\": \"HOLD\", \"lines\": []}")))
                .isInstanceOf(EncodeException.class).hasMessageContaining("side");
    }

    @Test
    void decodeChecksHeaderIdAndJsonButNotTheSchema() throws Exception {
        int id = registry.register("t-value", SchemaType.JSON, "{\"type\": \"object\"}").id();
        JsonSchemaCodec codec = JsonSchemaCodec.registry(registry, RecordPart.VALUE, FormatLimits.defaults());
        assertThat(codec.decode("t", ConfluentWireFormat.frame(id, "[1]".getBytes(StandardCharsets.UTF_8))))
                .isEqualTo(JSON.readTree("[1]"));
        assertThatThrownBy(() -> codec.decode("t", ConfluentWireFormat.frame(77, "{}".getBytes(StandardCharsets.UTF_8))))
                .isInstanceOf(DecodeException.class).hasMessage("unknown schema id 77");
        assertThatThrownBy(() -> codec.decode("t", ConfluentWireFormat.frame(id, "{\"a\": tru".getBytes(StandardCharsets.UTF_8))))
                .isInstanceOf(DecodeException.class).hasMessage("not exactly one JSON value");
        assertThatThrownBy(() -> codec.decode("t", ConfluentWireFormat.frame(id, "[".repeat(100).getBytes(StandardCharsets.UTF_8))))
                .isInstanceOf(DecodeException.class).hasMessageContaining("deeper");
        assertThatThrownBy(() -> codec.decode("t", ConfluentWireFormat.frame(id, new byte[] {'"', (byte) 0xc3, '"'})))
                .isInstanceOf(DecodeException.class).hasMessage("not valid UTF-8");
    }

    @Test
    void remoteReferencesAreNeverFetched() throws Exception {
        try (HttpStandIn server = new HttpStandIn("schema-host", null) {
            {
                listen(0);
            }

            @Override
            protected void handle(HttpExchange exchange) throws IOException {
                send(exchange, 200, "application/json", "{\"type\": \"object\"}".getBytes(StandardCharsets.UTF_8));
            }
        }) {
            registry.register("t-value", SchemaType.JSON, "{\"$ref\": \"" + server.url() + "/evil.json\"}");
            JsonSchemaCodec codec = JsonSchemaCodec.registry(registry, RecordPart.VALUE, FormatLimits.defaults());
            assertThatThrownBy(() -> codec.encode("t", JSON.readTree("{}"))).isInstanceOf(EncodeException.class);
            assertThat(server.requests()).isZero();
        }
    }

    @Test
    void localSchemaValidatesBareJson() throws Exception {
        JsonSchemaCodec codec = JsonSchemaCodec.local("{\"type\": \"array\", \"maxItems\": 1}", FormatLimits.defaults());
        assertThat(codec.encode("t", JSON.readTree("[1]"))).isEqualTo("[1]".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> codec.encode("t", JSON.readTree("[1, 2]"))).isInstanceOf(EncodeException.class);
        assertThat(codec.decode("t", "[1,2]".getBytes(StandardCharsets.UTF_8))).isEqualTo(JSON.readTree("[1, 2]"));
    }
}
