package io.sluice.format;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Field;
import com.google.protobuf.Int64Value;
import com.google.protobuf.Option;
import com.google.protobuf.SourceContext;
import com.google.protobuf.Struct;
import com.google.protobuf.Timestamp;
import com.google.protobuf.Type;
import com.google.protobuf.Value;
import com.google.protobuf.util.Durations;
import com.google.protobuf.util.JsonFormat;

import io.sluice.format.registry.SchemaReference;
import io.sluice.format.registry.SchemaType;

import static io.sluice.format.AvroCodecTest.plain;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProtobufCodecTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    static final String POSITION = """
            syntax = "proto3";
            package acme;
            import "google/protobuf/timestamp.proto";
            import "google/protobuf/duration.proto";
            import "google/protobuf/struct.proto";
            import "google/protobuf/wrappers.proto";

            message Header { string source = 1; }
            message Position {
              enum Side { SIDE_UNSPECIFIED = 0; LONG = 1; SHORT = 2; }
              int64 id = 1;
              uint64 big = 2;
              int32 qty = 3;
              Side side = 4;
              repeated string tags = 5;
              map<string, int64> limits = 6;
              oneof venue { string exchange = 7; int32 dark_pool = 8; }
              google.protobuf.Timestamp at = 9;
              google.protobuf.Duration ttl = 10;
              google.protobuf.Struct extra = 11;
              google.protobuf.Int64Value maybe = 12;
              bytes raw = 13;
              double ratio = 14;
              Nested nested = 15;
              message Nested { Position inner = 1; string label = 2; }
            }""";

    private final InMemorySchemas registry = new InMemorySchemas();
    private final FormatLimits limits = FormatLimits.defaults();

    private static byte[] framed(int id, byte[] indexes, byte[] body) {
        ByteArrayOutputStream out = ConfluentWireFormat.header(id, 0);
        out.writeBytes(indexes);
        out.writeBytes(body);
        return out.toByteArray();
    }

    private static DynamicMessage position(Descriptor type) throws Exception {
        DynamicMessage.Builder b = DynamicMessage.newBuilder(type);
        b.setField(type.findFieldByName("id"), Long.MAX_VALUE);
        b.setField(type.findFieldByName("big"), -1L); // uint64 max
        b.setField(type.findFieldByName("qty"), -7);
        b.setField(type.findFieldByName("side"), type.findEnumTypeByName("Side").findValueByName("SHORT"));
        b.addRepeatedField(type.findFieldByName("tags"), "a");
        b.addRepeatedField(type.findFieldByName("tags"), "b");
        Descriptor entry = type.findFieldByName("limits").getMessageType();
        b.addRepeatedField(type.findFieldByName("limits"), DynamicMessage.newBuilder(entry)
                .setField(entry.findFieldByName("key"), "eur").setField(entry.findFieldByName("value"), 1L << 60).build());
        b.setField(type.findFieldByName("dark_pool"), 3);
        b.setField(type.findFieldByName("at"), Timestamp.newBuilder().setSeconds(1_700_000_000L).setNanos(5_000_000).build());
        b.setField(type.findFieldByName("ttl"), Durations.fromMillis(1500));
        b.setField(type.findFieldByName("extra"), Struct.newBuilder().putFields("k", Value.newBuilder()
                .setListValue(com.google.protobuf.ListValue.newBuilder().addValues(Value.newBuilder().setNumberValue(1.5))
                        .addValues(Value.newBuilder().setBoolValue(true))).build()).build());
        b.setField(type.findFieldByName("maybe"), Int64Value.of(42));
        b.setField(type.findFieldByName("raw"), ByteString.copyFrom(new byte[] {0, (byte) 0xff, 7}));
        b.setField(type.findFieldByName("ratio"), Double.NEGATIVE_INFINITY);
        return b.build();
    }

    @Test
    void decodesDynamicMessagesAsCanonicalProto3Json() throws Exception {
        int id = registry.register("positions-value", SchemaType.PROTOBUF, POSITION).id();
        ProtobufCodec codec = ProtobufCodec.registry(registry, RecordPart.VALUE, null, false, limits);
        Descriptor type = ProtobufSchemas.fromText(POSITION, Map.of()).findMessageTypeByName("Position");

        JsonNode json = codec.decode("positions", framed(id, new byte[] {2, 2}, position(type).toByteArray()));

        assertThat(plain(json)).isEqualTo(JSON.readTree("""
                {"id": "9223372036854775807", "big": "18446744073709551615", "qty": -7, "side": "SHORT",
                 "tags": ["a", "b"], "limits": {"eur": "1152921504606846976"}, "darkPool": 3,
                 "at": "2023-11-14T22:13:20.005Z", "ttl": "1.500s", "extra": {"k": [1.5, true]}, "maybe": "42",
                 "raw": "AP8H", "ratio": "-Infinity"}"""));
        assertThat(codec.decode("positions", framed(id, new byte[] {0}, new byte[0])))
                .as("[0] as the single byte 0: the first message, Header").isEqualTo(JSON.readTree("{}"));
        ProtobufCodec preserving = ProtobufCodec.registry(registry, RecordPart.VALUE, null, true, limits);
        assertThat(preserving.decode("positions", framed(id, new byte[] {2, 2}, position(type).toByteArray()))
                .has("dark_pool")).isTrue();
    }

    @Test
    void textSchemasAgreeWithProtocsOwnGeneratedCode() throws Exception {
        // google/protobuf/type.proto as a registry would hold it, with its imports as references; the bytes come from
        // protobuf-java's generated (protoc-compiled) Type class.
        registry.register("source_context", SchemaType.PROTOBUF, resource("google/protobuf/source_context.proto"));
        registry.register("any", SchemaType.PROTOBUF, resource("google/protobuf/any.proto"));
        int id = registry.register("types-value", SchemaType.PROTOBUF, resource("google/protobuf/type.proto"),
                new SchemaReference("google/protobuf/any.proto", "any", 1),
                new SchemaReference("google/protobuf/source_context.proto", "source_context", 1)).id();
        Type type = Type.newBuilder().setName("acme.T").addOneofs("o")
                .addFields(Field.newBuilder().setKind(Field.Kind.TYPE_INT64).setCardinality(Field.Cardinality.CARDINALITY_REPEATED)
                        .setNumber(3).setName("n").setJsonName("n").setPacked(true))
                .addOptions(Option.newBuilder().setName("opt").setValue(Any.pack(SourceContext.newBuilder().setFileName("f").build())))
                .setSourceContext(SourceContext.newBuilder().setFileName("x.proto")).setSyntaxValue(1).build();
        ProtobufCodec codec = ProtobufCodec.registry(registry, RecordPart.VALUE, null, false, limits);
        // Type is the first message in type.proto.
        JsonNode json = codec.decode("types", framed(id, new byte[] {0}, type.toByteArray()));

        JsonFormat.TypeRegistry types = JsonFormat.TypeRegistry.newBuilder().add(SourceContext.getDescriptor()).build();
        assertThat(plain(json)).isEqualTo(JSON.readTree(JsonFormat.printer().usingTypeRegistry(types).print(type)));
        byte[] published = codec.encode("types", json);
        assertThat(Type.parseFrom(Arrays.copyOfRange(published, 6, published.length))).isEqualTo(type);
    }

    private static String resource(String path) throws IOException {
        try (InputStream in = Timestamp.class.getClassLoader().getResourceAsStream(path)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void publishedJsonRoundTripsWithMessageIndexesAndRefusalsNameTheField() throws Exception {
        int id = registry.register("positions-value", SchemaType.PROTOBUF, POSITION).id();
        ProtobufCodec codec = ProtobufCodec.registry(registry, RecordPart.VALUE, "acme.Position", false, limits);
        ObjectNode value = (ObjectNode) JSON.readTree("""
                {"id": "-9223372036854775808", "qty": 5, "side": "LONG", "exchange": "XPAR", "tags": ["x"],
                 "limits": {"a": 1}, "at": "2024-01-01T00:00:00Z", "extra": {"deep": {"x": null}},
                 "nested": {"inner": {"qty": 1}, "label": "l"}}""");

        byte[] bytes = codec.encode("positions", value);

        assertThat(ConfluentWireFormat.schemaId(bytes)).isEqualTo(id);
        assertThat(bytes[5]).as("message-index path [1], zig-zag: count 1 -> 2, index 1 -> 2").isEqualTo((byte) 2);
        assertThat(bytes[6]).isEqualTo((byte) 2);
        Descriptor type = ProtobufSchemas.fromText(POSITION, Map.of()).findMessageTypeByName("Position");
        DynamicMessage read = DynamicMessage.parseFrom(type, Arrays.copyOfRange(bytes, 7, bytes.length));
        assertThat(read.getField(type.findFieldByName("id"))).isEqualTo(Long.MIN_VALUE);
        assertThat(read.getField(type.findFieldByName("exchange"))).isEqualTo("XPAR");
        ObjectNode expected = value.deepCopy();
        expected.put("limits", JSON.readTree("{\"a\": \"1\"}"));
        assertThat(plain(codec.decode("positions", bytes))).isEqualTo(expected);

        ProtobufCodec firstMessage = ProtobufCodec.registry(registry, RecordPart.VALUE, null, false, limits);
        byte[] header = firstMessage.encode("positions", JSON.readTree("{\"source\": \"s\"}"));
        assertThat(header[5]).as("[0] written as the single byte 0").isEqualTo((byte) 0);

        assertThatThrownBy(() -> codec.encode("positions", with(value, "qty", "3000000000")))
                .isInstanceOf(EncodeException.class).hasMessageStartingWith("/qty: 3000000000 is out of range for int32");
        assertThatThrownBy(() -> codec.encode("positions", with(value, "side", "\"HOLD\"")))
                .hasMessageStartingWith("/side: unknown value \"HOLD\" of enum acme.Position.Side");
        assertThatThrownBy(() -> codec.encode("positions", with(value, "nested", "{\"inner\": {\"tags\": [1]}}")))
                .hasMessageStartingWith("/nested/inner/tags/0: expected a string, got a number");
        assertThatThrownBy(() -> codec.encode("positions", with(value, "nope", "1")))
                .hasMessageStartingWith("/nope: no such field in message acme.Position");
        assertThatThrownBy(() -> codec.encode("positions", with(value, "limits", "{\"a\": \"x\"}")))
                .hasMessageStartingWith("/limits/a: expected an integer");
        assertThatThrownBy(() -> codec.encode("positions", with(value, "at", "\"yesterday\"")))
                .isInstanceOf(EncodeException.class).hasMessageContaining("acme.Position");
        assertThatThrownBy(() -> codec.encode("positions", with(value, "big", "-1")))
                .hasMessageStartingWith("/big: -1 is out of range for uint64");
    }

    private static ObjectNode with(ObjectNode node, String field, String json) throws IOException {
        ObjectNode copy = node.deepCopy();
        copy.set(field, JSON.readTree(json));
        return copy;
    }

    @Test
    void hostileBytesAreDecodeExceptions() throws Exception {
        int id = registry.register("positions-value", SchemaType.PROTOBUF, POSITION).id();
        ProtobufCodec codec = ProtobufCodec.registry(registry, RecordPart.VALUE, null, false, limits);
        assertThatThrownBy(() -> codec.decode("p", new byte[] {0, 0, 0, 0})).isInstanceOf(DecodeException.class);
        assertThatThrownBy(() -> codec.decode("p", framed(id, new byte[0], new byte[0])))
                .isInstanceOf(DecodeException.class).hasMessageContaining("truncated message index");
        assertThatThrownBy(() -> codec.decode("p", framed(id, new byte[] {2, 8}, new byte[0])))
                .hasMessageContaining("message index 4 out of range (2 types)");
        assertThatThrownBy(() -> codec.decode("p", framed(id, new byte[] {(byte) 0xfe, (byte) 0xff, 0x7f}, new byte[0])))
                .hasMessageContaining("message index count");
        assertThatThrownBy(() -> codec.decode("p", framed(id, new byte[] {1}, new byte[0])))
                .hasMessageContaining("out of range");
        assertThatThrownBy(() -> codec.decode("p", framed(99, new byte[] {0}, new byte[0])))
                .hasMessage("unknown schema id 99");
        // Field 13 (bytes) declaring 2^28 bytes in a 6-byte message; a truncated varint; an invalid wire type.
        assertThatThrownBy(() -> codec.decode("p", framed(id, new byte[] {2, 2},
                new byte[] {0x6a, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x01})))
                .isInstanceOf(DecodeException.class).hasMessageContaining("acme.Position");
        assertThatThrownBy(() -> codec.decode("p", framed(id, new byte[] {2, 2}, new byte[] {0x08, (byte) 0x80})))
                .isInstanceOf(DecodeException.class);
        assertThatThrownBy(() -> codec.decode("p", framed(id, new byte[] {2, 2}, new byte[] {0x0f})))
                .isInstanceOf(DecodeException.class);
        byte[] deep = deepNesting(40); // 80 message levels: over 64, under protobuf-java's default 100
        assertThatThrownBy(() -> codec.decode("p", framed(id, new byte[] {2, 2}, deep)))
                .isInstanceOf(DecodeException.class).hasMessageContaining("acme.Position");
    }

    /** Position.nested.inner.nested.inner... {@code levels} times, with multi-byte length varints. */
    private static byte[] deepNesting(int levels) {
        byte[] body = new byte[0];
        for (int i = 0; i < levels; i++) {
            byte[] inner = concat(concat(new byte[] {0x0a}, varint(body.length)), body); // Nested.inner = 1
            body = concat(concat(new byte[] {0x7a}, varint(inner.length)), inner);     // Position.nested = 15
        }
        return body;
    }

    private static byte[] varint(int value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while ((value & ~0x7f) != 0) {
            out.write((value & 0x7f) | 0x80);
            value >>>= 7;
        }
        out.write(value);
        return out.toByteArray();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    @Test
    void localDescriptorSetAndProtoTextReadBareMessages() throws Exception {
        FileDescriptor file = ProtobufSchemas.fromText(POSITION, Map.of());
        byte[] set = FileDescriptorSet.newBuilder().addFile(file.toProto()).build().toByteArray();
        ProtobufCodec fromSet = ProtobufCodec.localDescriptorSet(set, "acme.Position.Nested", false, limits);
        assertThat(fromSet.decode("t", new byte[] {0x12, 1, 'x'})).isEqualTo(JSON.readTree("{\"label\": \"x\"}"));
        assertThat(fromSet.encode("t", JSON.readTree("{\"label\": \"x\"}"))).containsExactly(0x12, 1, 'x');
        ProtobufCodec fromText = ProtobufCodec.localProto(POSITION, Map.of(), "acme.Header", false, limits);
        assertThat(fromText.decode("t", new byte[] {0x0a, 1, 's'})).isEqualTo(JSON.readTree("{\"source\": \"s\"}"));
        assertThatThrownBy(() -> ProtobufCodec.localDescriptorSet(set, "acme.Nope", false, limits))
                .isInstanceOf(SchemaFileException.class);
        assertThatThrownBy(() -> ProtobufCodec.localDescriptorSet(new byte[] {0x0a, 0x7f}, "acme.Nope", false, limits))
                .isInstanceOf(SchemaFileException.class);
        assertThatThrownBy(() -> ProtobufCodec.localProto("message {", Map.of(), "x", false, limits))
                .isInstanceOf(SchemaFileException.class);
    }
}
