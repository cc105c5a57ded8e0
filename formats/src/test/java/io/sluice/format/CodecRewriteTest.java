package io.sluice.format;

import java.util.Arrays;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;

import io.sluice.format.registry.SchemaType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Codec#rewrite}: a changed value goes back with the schema and header it came with (the schema id even when a
 * newer version is the subject's latest; a Protobuf record's message-index path), read back by Avro's and protobuf-java's
 * own readers; a change that does not fit the schema is refused, naming the field.
 */
class CodecRewriteTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ORDER_V1 = """
            {"type": "record", "name": "Order", "namespace": "acme", "fields": [
              {"name": "id", "type": "long"},
              {"name": "card", "type": {"type": "record", "name": "Card", "fields": [{"name": "number", "type": "string"}]}},
              {"name": "note", "type": ["null", "string"], "default": null},
              {"name": "amount", "type": "int"}]}""";
    private static final String ORDER_V2 = ORDER_V1.replace("{\"name\": \"amount\", \"type\": \"int\"}",
            "{\"name\": \"amount\", \"type\": \"int\"}, {\"name\": \"extra\", \"type\": \"string\", \"default\": \"\"}");

    private final InMemorySchemas registry = new InMemorySchemas();
    private final FormatLimits limits = FormatLimits.defaults();

    private static ObjectNode maskCard(JsonNode value) {
        ObjectNode copy = (ObjectNode) value;
        ((ObjectNode) copy.get("card")).put("number", "****1111");
        copy.putNull("note");
        return copy;
    }

    @Test
    void avroKeepsItsSchemaIdAndIsReadByAvrosOwnReader() throws Exception {
        int v1 = registry.register("orders-value", SchemaType.AVRO, ORDER_V1).id();
        registry.register("orders-value", SchemaType.AVRO, ORDER_V2);
        Schema schema = new Schema.Parser().parse(ORDER_V1);
        GenericRecord order = new GenericData.Record(schema);
        GenericRecord card = new GenericData.Record(schema.getField("card").schema());
        card.put("number", "4111111111111111");
        order.put("id", 7L);
        order.put("card", card);
        order.put("note", "call first");
        order.put("amount", 12);
        byte[] bytes = ConfluentWireFormat.frame(v1, AvroBinary.write(schema, order));
        AvroCodec codec = AvroCodec.registry(registry, RecordPart.VALUE, limits);

        byte[] masked = codec.rewrite("orders", bytes, CodecRewriteTest::maskCard);

        assertThat(ConfluentWireFormat.schemaId(masked)).as("the record's own id, not the subject's latest").isEqualTo(v1);
        GenericRecord read = AvroBinary.read(schema, Arrays.copyOfRange(masked, 5, masked.length));
        assertThat(read.get("card").toString()).isEqualTo("{\"number\": \"****1111\"}");
        assertThat(read.get("note")).isNull();
        assertThat(read.get("id")).isEqualTo(7L);
        assertThat(read.get("amount")).isEqualTo(12);

        assertThatThrownBy(() -> codec.rewrite("orders", bytes, v -> ((ObjectNode) v).put("amount", "****")))
                .isInstanceOf(EncodeException.class).hasMessageContaining("/amount");
        assertThatThrownBy(() -> codec.rewrite("orders", bytes, v -> ((ObjectNode) v).putNull("id")))
                .isInstanceOf(EncodeException.class).hasMessageContaining("/id");
        assertThatThrownBy(() -> codec.rewrite("orders", Arrays.copyOf(bytes, 9), v -> v)).isInstanceOf(DecodeException.class);
        // A removed member is written as its default (docs/masking.md), or refused when it has none.
        byte[] noNote = codec.rewrite("orders", bytes, v -> {
            ((ObjectNode) v).remove("note");
            return v;
        });
        assertThat(AvroBinary.read(schema, Arrays.copyOfRange(noNote, 5, noNote.length)).get("note")).isNull();
        assertThatThrownBy(() -> codec.rewrite("orders", bytes, v -> {
            ((ObjectNode) v).remove("amount");
            return v;
        })).isInstanceOf(EncodeException.class).hasMessageContaining("/amount: missing required field");
    }

    @Test
    void protobufKeepsItsIdAndMessageIndexes() throws Exception {
        String proto = """
                syntax = "proto3";
                package acme;
                message Other { string x = 1; }
                message Order { int64 id = 1; string card_number = 2; int32 amount = 3; }""";
        int id = registry.register("orders-value", SchemaType.PROTOBUF, proto).id();
        Descriptor type = ProtobufSchemas.fromText(proto, java.util.Map.of()).findMessageTypeByName("Order");
        byte[] body = DynamicMessage.newBuilder(type).setField(type.findFieldByName("id"), 7L)
                .setField(type.findFieldByName("card_number"), "4111111111111111").setField(type.findFieldByName("amount"), 12).build().toByteArray();
        java.io.ByteArrayOutputStream out = ConfluentWireFormat.header(id, body.length);
        out.writeBytes(new byte[] {2, 2}); // message-index path [1]: Order, the second message
        out.writeBytes(body);
        byte[] bytes = out.toByteArray();
        ProtobufCodec codec = ProtobufCodec.registry(registry, RecordPart.VALUE, null, false, limits);

        byte[] masked = codec.rewrite("orders", bytes, v -> ((ObjectNode) v).put("cardNumber", "************1111"));

        assertThat(Arrays.copyOf(masked, 7)).isEqualTo(Arrays.copyOf(bytes, 7));
        DynamicMessage read = DynamicMessage.parseFrom(type, Arrays.copyOfRange(masked, 7, masked.length));
        assertThat(read.getField(type.findFieldByName("card_number"))).isEqualTo("************1111");
        assertThat(read.getField(type.findFieldByName("id"))).isEqualTo(7L);
        assertThatThrownBy(() -> codec.rewrite("orders", bytes, v -> ((ObjectNode) v).put("amount", "***")))
                .isInstanceOf(EncodeException.class).hasMessageContaining("/amount");
        byte[] cleared = codec.rewrite("orders", bytes, v -> ((ObjectNode) v).putNull("cardNumber"));
        assertThat(DynamicMessage.parseFrom(type, Arrays.copyOfRange(cleared, 7, cleared.length)).hasField(type.findFieldByName("card_number")))
                .as("null clears a Protobuf field").isFalse();
    }

    @Test
    void jsonSchemaValidatesWhatItWritesAndPlainJsonIsRewrittenAsIs() throws Exception {
        String schema = """
                {"type": "object", "properties": {"card": {"type": "string", "pattern": "^[0-9*]+$"}, "note": {"type": "string"}},
                 "required": ["card"]}""";
        int id = registry.register("orders-value", SchemaType.JSON, schema).id();
        byte[] bytes = ConfluentWireFormat.frame(id, "{\"card\":\"4111111111111111\",\"note\":\"x\"}".getBytes());
        JsonSchemaCodec codec = JsonSchemaCodec.registry(registry, RecordPart.VALUE, limits);

        byte[] masked = codec.rewrite("orders", bytes, v -> ((ObjectNode) v).put("card", "************1111"));

        assertThat(ConfluentWireFormat.schemaId(masked)).isEqualTo(id);
        assertThat(new String(masked, 5, masked.length - 5)).isEqualTo("{\"card\":\"************1111\",\"note\":\"x\"}");
        assertThatThrownBy(() -> codec.rewrite("orders", bytes, v -> ((ObjectNode) v).put("card", "XXXX1111")))
                .as("the masked value breaks the schema's pattern").isInstanceOf(EncodeException.class).hasMessageStartingWith("/card: ");
        assertThatThrownBy(() -> codec.rewrite("orders", bytes, v -> {
            ((ObjectNode) v).remove("card");
            return v;
        })).hasMessageContaining("card");

        JsonCodec plain = new JsonCodec(limits);
        assertThat(new String(plain.rewrite("t", "{\"a\": 1, \"b\": 2}".getBytes(), v -> ((ObjectNode) v).remove("a") == null ? v : v)))
                .isEqualTo("{\"b\":2}");
        assertThatThrownBy(() -> new StringCodec().rewrite("t", "x".getBytes(), v -> v)).isInstanceOf(EncodeException.class)
                .hasMessageContaining("cannot be rewritten");
    }
}
