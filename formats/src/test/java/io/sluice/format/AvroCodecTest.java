package io.sluice.format;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.sluice.format.registry.SchemaReference;
import io.sluice.format.registry.SchemaType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AvroCodecTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    static final String ORDER = """
            {"type": "record", "name": "Order", "namespace": "acme", "fields": [
              {"name": "id", "type": "long"},
              {"name": "small", "type": "long"},
              {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
              {"name": "raw", "type": "bytes"},
              {"name": "side", "type": {"type": "enum", "name": "Side", "symbols": ["BUY", "SELL"]}},
              {"name": "note", "type": ["null", "string"], "default": null},
              {"name": "qty", "type": ["null", "int", "string"]},
              {"name": "tags", "type": {"type": "map", "values": "int"}},
              {"name": "ratio", "type": "double"},
              {"name": "f", "type": "float"},
              {"name": "ref", "type": {"type": "string", "logicalType": "uuid"}},
              {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
              {"name": "lines", "type": {"type": "array", "items":
                 {"type": "record", "name": "Line", "fields": [{"name": "sku", "type": "string"},
                                                              {"name": "n", "type": "int"}]}}}
            ]}""";

    private final InMemorySchemas registry = new InMemorySchemas();
    private final FormatLimits limits = FormatLimits.defaults();

    private static byte[] avro(Schema schema, Object datum) {
        return AvroBinary.write(schema, datum);
    }

    private static byte[] framed(int id, byte[] body) {
        return ConfluentWireFormat.frame(id, body);
    }

    private static GenericRecord order(Schema schema) {
        GenericData.Record order = new GenericData.Record(schema);
        order.put("id", Long.MAX_VALUE);
        order.put("small", -(1L << 53) + 1);
        Schema priceSchema = schema.getField("price").schema();
        order.put("price", new Conversions.DecimalConversion().toBytes(new BigDecimal("1234567.89"), priceSchema,
                LogicalTypes.decimal(9, 2)));
        order.put("raw", ByteBuffer.wrap(new byte[] {0, (byte) 0xff, 7}));
        order.put("side", new GenericData.EnumSymbol(schema.getField("side").schema(), "SELL"));
        order.put("note", null);
        order.put("qty", 12);
        order.put("tags", Map.of("a", 1));
        order.put("ratio", Double.NaN);
        order.put("f", 1.1f);
        order.put("ref", "6f1e2a3b-0000-4000-8000-000000000001");
        order.put("at", 1_700_000_000_000L);
        Schema lineSchema = schema.getField("lines").schema().getElementType();
        GenericData.Record line = new GenericData.Record(lineSchema);
        line.put("sku", "X-1");
        line.put("n", 3);
        order.put("lines", new GenericData.Array<>(schema.getField("lines").schema(), List.of(line)));
        return order;
    }

    @Test
    void decodesBytesFromAvrosOwnWriterWithTheDocumentedMapping() throws Exception {
        Schema schema = new Schema.Parser().parse(ORDER);
        int id = registry.register("orders-value", SchemaType.AVRO, ORDER).id();
        AvroCodec codec = AvroCodec.registry(registry, RecordPart.VALUE, limits);

        JsonNode json = codec.decode("orders", framed(id, avro(schema, order(schema))));

        assertThat(plain(json)).isEqualTo(JSON.readTree("""
                {"id": "9223372036854775807", "small": -9007199254740991, "price": "1234567.89", "raw": "AP8H",
                 "side": "SELL", "note": null, "qty": 12, "tags": {"a": 1}, "ratio": "NaN", "f": 1.1,
                 "ref": "6f1e2a3b-0000-4000-8000-000000000001", "at": 1700000000000,
                 "lines": [{"sku": "X-1", "n": 3}]}"""));
    }

    @Test
    void publishedJsonRoundTripsThroughAvrosOwnReader() throws Exception {
        registry.register("orders-value", SchemaType.AVRO, "{\"type\": \"string\"}");
        int id = registry.register("orders-value", SchemaType.AVRO, ORDER).id();
        AvroCodec codec = AvroCodec.registry(registry, RecordPart.VALUE, limits);
        JsonNode published = JSON.readTree("""
                {"id": "9223372036854775807", "small": 5, "price": "-0.05", "raw": "AP8H", "side": "BUY",
                 "qty": "twelve", "tags": {}, "ratio": "-Infinity", "f": 2.5, "ref": "u", "at": 1,
                 "lines": [{"sku": "Y", "n": -1}]}""");

        byte[] bytes = codec.encode("orders", published);

        assertThat(ConfluentWireFormat.schemaId(bytes)).as("latest version's id").isEqualTo(id);
        Schema schema = new Schema.Parser().parse(ORDER);
        GenericRecord read = (GenericRecord) new GenericDatumReader<>(schema).read(null,
                DecoderFactory.get().binaryDecoder(bytes, 5, bytes.length - 5, null));
        assertThat(read.get("id")).isEqualTo(Long.MAX_VALUE);
        assertThat(read.get("note")).as("default").isNull();
        assertThat(read.get("qty").toString()).as("first union branch that fits: string").isEqualTo("twelve");
        assertThat(new Conversions.DecimalConversion().fromBytes((ByteBuffer) read.get("price"), null,
                LogicalTypes.decimal(9, 2))).isEqualByComparingTo("-0.05");
        ObjectNode expected = (ObjectNode) published.deepCopy();
        expected.putNull("note");
        assertThat(plain(codec.decode("orders", bytes))).isEqualTo(expected);
    }

    @Test
    void publishRefusalsNameTheField() throws Exception {
        registry.register("orders-value", SchemaType.AVRO, ORDER);
        AvroCodec codec = AvroCodec.registry(registry, RecordPart.VALUE, limits);
        ObjectNode good = (ObjectNode) JSON.readTree("""
                {"id": 1, "small": 5, "price": "1.00", "raw": "", "side": "BUY", "qty": null, "tags": {},
                 "ratio": 1, "f": 1, "ref": "u", "at": 1, "lines": [{"sku": "Y", "n": 1}]}""");
        codec.encode("orders", good);

        assertThatThrownBy(() -> codec.encode("orders", with(good, "side", "\"HOLD\"")))
                .isInstanceOf(EncodeException.class).hasMessageContaining("/side").hasMessageContaining("HOLD");
        assertThatThrownBy(() -> codec.encode("orders", with(good, "lines", "[{\"sku\": \"Y\", \"n\": 3000000000}]")))
                .hasMessageStartingWith("/lines/0/n: 3000000000 is out of range for an Avro int");
        assertThatThrownBy(() -> codec.encode("orders", with(good, "lines", "[{\"sku\": 7, \"n\": 1}]")))
                .hasMessageStartingWith("/lines/0/sku: expected a string, got a number");
        ObjectNode missing = good.deepCopy();
        missing.remove("id");
        assertThatThrownBy(() -> codec.encode("orders", missing)).hasMessageStartingWith("/id: missing required field");
        assertThatThrownBy(() -> codec.encode("orders", with(good, "extra", "1")))
                .hasMessageStartingWith("/extra: no such field");
        assertThatThrownBy(() -> codec.encode("orders", with(good, "price", "\"1.001\"")))
                .hasMessageStartingWith("/price: more than 2 decimal places");
        assertThatThrownBy(() -> codec.encode("orders", with(good, "qty", "true")))
                .hasMessageStartingWith("/qty: fits no branch of the union [null, int, string]");
        assertThatThrownBy(() -> codec.encode("orders", with(good, "tags", "{\"a\": \"x\"}")))
                .hasMessageStartingWith("/tags/a: expected an int");
        assertThatThrownBy(() -> codec.encode("other", good)).isInstanceOf(EncodeException.class)
                .hasMessageContaining("other-value");
    }

    /** The tree as a client parses it from the wire (the codec's number node classes are not the test's concern). */
    static JsonNode plain(JsonNode node) throws IOException {
        return JSON.readTree(JSON.writeValueAsString(node));
    }

    private static ObjectNode with(ObjectNode node, String field, String json) throws IOException {
        ObjectNode copy = node.deepCopy();
        copy.set(field, JSON.readTree(json));
        return copy;
    }

    @Test
    void headerProblemsAndUnknownIdsAreDecodeExceptionsAndUnknownIdsAreNotParsedAgain() throws Exception {
        AvroCodec codec = AvroCodec.registry(registry, RecordPart.VALUE, limits);
        assertThatThrownBy(() -> codec.decode("t", new byte[] {0, 0, 0})).isInstanceOf(DecodeException.class)
                .hasMessageContaining("shorter than the 5-byte");
        assertThatThrownBy(() -> codec.decode("t", new byte[] {1, 0, 0, 0, 1, 2})).isInstanceOf(DecodeException.class)
                .hasMessageContaining("first byte 1");
        assertThatThrownBy(() -> codec.decode("t", new byte[] {0, 0, 0, 0, 42, 2})).isInstanceOf(DecodeException.class)
                .hasMessage("unknown schema id 42");
        int broken = registry.register("t-value", SchemaType.AVRO, "{\"type\": \"nonsense\"}").id();
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> codec.decode("t", framed(broken, new byte[] {2})))
                    .isInstanceOf(DecodeException.class).hasMessageContaining("unusable");
        }
        int calls = registry.byIdCalls();
        assertThatThrownBy(() -> codec.decode("t", framed(broken, new byte[] {2}))).isInstanceOf(DecodeException.class);
        assertThat(registry.byIdCalls()).as("an unparsable schema is remembered").isEqualTo(calls);
        int proto = registry.register("p-value", SchemaType.PROTOBUF, "syntax = \"proto3\";").id();
        assertThatThrownBy(() -> codec.decode("t", framed(proto, new byte[] {2})))
                .hasMessageContaining("not Avro");
    }

    @Test
    void hostileLengthsAreRefusedBeforeAllocating() throws Exception {
        int strings = registry.register("s", SchemaType.AVRO, "{\"type\": \"string\"}").id();
        int bytes = registry.register("b", SchemaType.AVRO, "{\"type\": \"bytes\"}").id();
        int arrays = registry.register("a", SchemaType.AVRO, "{\"type\": \"array\", \"items\": \"long\"}").id();
        int maps = registry.register("m", SchemaType.AVRO, "{\"type\": \"map\", \"values\": \"null\"}").id();
        int records = registry.register("r", SchemaType.AVRO, ORDER).id();
        AvroCodec codec = AvroCodec.registry(registry, RecordPart.VALUE, limits);
        // zig-zag varint 0xFF 0xFF 0xFF 0xFF 0x0F is 2^31 - 1 ... declared lengths of about 1 GiB in a 10-byte record.
        byte[] hugeLength = {(byte) 0xfe, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07};
        assertThatThrownBy(() -> codec.decode("t", framed(strings, hugeLength))).isInstanceOf(DecodeException.class)
                .hasMessageContaining("string length 1073741823 exceeds the 0 bytes left");
        assertThatThrownBy(() -> codec.decode("t", framed(bytes, hugeLength))).isInstanceOf(DecodeException.class)
                .hasMessageContaining("bytes length");
        assertThatThrownBy(() -> codec.decode("t", framed(arrays, hugeLength))).isInstanceOf(DecodeException.class)
                .hasMessageContaining("array block of 1073741823 items");
        assertThatThrownBy(() -> codec.decode("t", framed(maps, hugeLength))).isInstanceOf(DecodeException.class)
                .hasMessageContaining("map block");
        assertThatThrownBy(() -> codec.decode("t", framed(strings, new byte[] {1})))
                .hasMessageContaining("negative string length");
        // A record cut short, one with bytes left over, a union index out of range, an enum index out of range.
        Schema schema = new Schema.Parser().parse(ORDER);
        byte[] good = avro(schema, order(schema));
        byte[] cut = java.util.Arrays.copyOf(good, good.length - 3);
        assertThatThrownBy(() -> codec.decode("t", framed(records, cut))).isInstanceOf(DecodeException.class);
        byte[] longer = java.util.Arrays.copyOf(good, good.length + 1);
        assertThatThrownBy(() -> codec.decode("t", framed(records, longer))).hasMessageContaining("1 bytes left over");
        int unions = registry.register("u", SchemaType.AVRO, "[\"null\", \"int\"]").id();
        assertThatThrownBy(() -> codec.decode("t", framed(unions, new byte[] {8}))).isInstanceOf(DecodeException.class);
        int enums = registry.register("e", SchemaType.AVRO,
                "{\"type\": \"enum\", \"name\": \"E\", \"symbols\": [\"A\"]}").id();
        assertThatThrownBy(() -> codec.decode("t", framed(enums, new byte[] {8}))).isInstanceOf(DecodeException.class);
        assertThatThrownBy(() -> codec.decode("t", framed(enums, new byte[] {(byte) 0xff}))).isInstanceOf(DecodeException.class);
    }

    @Test
    void deeplyNestedRecordsAreRefusedBothWays() throws Exception {
        String list = """
                {"type": "record", "name": "Node", "fields": [{"name": "next", "type": ["null", "Node"]}]}""";
        int id = registry.register("list-value", SchemaType.AVRO, list).id();
        AvroCodec codec = AvroCodec.registry(registry, RecordPart.VALUE, limits);
        // 100,000 levels: union branch 1 (varint 2) each, then null (0). Without the bound, a StackOverflowError.
        byte[] deep = new byte[100_001];
        java.util.Arrays.fill(deep, 0, 100_000, (byte) 2);
        assertThatThrownBy(() -> codec.decode("list", framed(id, deep))).isInstanceOf(DecodeException.class)
                .hasMessageContaining("deeper than 64");
        byte[] shallow = new byte[11];
        java.util.Arrays.fill(shallow, 0, 10, (byte) 2);
        assertThat(codec.decode("list", framed(id, shallow)).at("/next/next/next/next/next/next/next/next/next/next/next").isNull())
                .isTrue();

        StringBuilder json = new StringBuilder();
        for (int i = 0; i < 70; i++) {
            json.append("{\"next\": ");
        }
        json.append("null").append("}".repeat(70));
        assertThatThrownBy(() -> codec.encode("list", JSON.readTree(json.toString())))
                .isInstanceOf(EncodeException.class).hasMessageContaining("deeper than 64");
    }

    @Test
    void referencedNamedTypesAreFetchedAndUsed() throws Exception {
        String line = """
                {"type": "record", "name": "Line", "namespace": "acme", "fields": [{"name": "sku", "type": "string"}]}""";
        registry.register("line-value", SchemaType.AVRO, line);
        String basket = """
                {"type": "record", "name": "Basket", "namespace": "acme", "fields": [
                  {"name": "lines", "type": {"type": "array", "items": "acme.Line"}}]}""";
        int id = registry.register("basket-value", SchemaType.AVRO, basket,
                new SchemaReference("acme.Line", "line-value", 1)).id();
        AvroCodec codec = AvroCodec.registry(registry, RecordPart.VALUE, limits);
        byte[] body = {2, 4, 'a', 'b', 0};
        assertThat(codec.decode("basket", framed(id, body))).isEqualTo(JSON.readTree("{\"lines\": [{\"sku\": \"ab\"}]}"));
    }

    @Test
    void localSchemaReadsAndWritesBareAvro() throws Exception {
        AvroCodec codec = AvroCodec.local("{\"type\": \"long\"}", limits);
        assertThat(plain(codec.decode("t", new byte[] {4}))).isEqualTo(JSON.readTree("2"));
        assertThat(codec.encode("t", JSON.readTree("\"-9007199254740993\""))).isEqualTo(
                avro(Schema.create(Schema.Type.LONG), -9007199254740993L));
        assertThat(codec.decode("t", avro(Schema.create(Schema.Type.LONG), -9007199254740993L)))
                .isEqualTo(JSON.readTree("\"-9007199254740993\""));
        assertThatThrownBy(() -> AvroCodec.local("{\"type\": \"nope\"}", limits)).isInstanceOf(SchemaFileException.class);
    }
}
