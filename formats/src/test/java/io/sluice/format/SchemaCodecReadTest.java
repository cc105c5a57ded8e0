package io.sluice.format;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.format.registry.CachingSchemaSource;
import io.sluice.format.registry.RegisteredSchema;
import io.sluice.format.registry.RegistryCacheConfig;
import io.sluice.format.registry.RegistryUnreachableException;
import io.sluice.format.registry.SchemaSource;
import io.sluice.format.registry.SchemaType;
import io.sluice.format.registry.SchemaUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link SchemaCodec#read}, what the proxy's RecordValidation asks of each record part: the schema id, the record name
 * the subject strategies use, and with {@code decode} whether the payload conforms; never waiting for the registry
 * (the first read of an id is pending while a lookup thread fetches and parses it).
 */
class SchemaCodecReadTest {

    static final String TRADE = "{\"type\":\"record\",\"name\":\"Trade\",\"namespace\":\"acme\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"sym\",\"type\":\"string\"}]}";
    static final String QUOTES = """
            syntax = "proto3";
            package acme;
            message Header { string source = 1; }
            message Quote { string sym = 1; int64 size = 2; message Leg { int32 n = 1; } }
            """;
    static final String EVENT = "{\"title\":\"acme.Event\",\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},"
            + "\"n\":{\"type\":\"integer\",\"maximum\":100}},\"required\":[\"id\"]}";

    private final InMemorySchemas registry = new InMemorySchemas();
    private final CachingSchemaSource source = CachingSchemaSource.create(registry, RegistryCacheConfig.defaults(), new SimpleMeterRegistry());

    @AfterEach
    void close() {
        source.close();
    }

    /** Reads until the schema is there: a pending read is asked again once its future completes, as the filter does. */
    private static SchemaRecord read(SchemaCodec codec, byte[] bytes, boolean decode) throws Exception {
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                return codec.read(bytes, decode);
            }
            catch (SchemaPendingException e) {
                e.ready().get(5, TimeUnit.SECONDS);
            }
        }
        throw new AssertionError("still pending after three lookups");
    }

    @Test
    void avroNamesItsRecordAndDecodesOnlyWhenAsked() throws Exception {
        RegisteredSchema trade = registry.register("orders-value", SchemaType.AVRO, TRADE);
        AvroCodec codec = AvroCodec.registry(source, RecordPart.VALUE, FormatLimits.defaults());
        Schema schema = new Schema.Parser().parse(TRADE);
        GenericRecord record = new GenericData.Record(schema);
        record.put("id", 7L);
        record.put("sym", "ACME");
        byte[] bytes = AvroBinary.confluent(trade.id(), schema, record);

        assertThatThrownBy(() -> codec.read(bytes, true)).as("first sight of the id: fetched off the caller's thread")
                .isInstanceOf(SchemaPendingException.class);
        assertThat(read(codec, bytes, true)).isEqualTo(new SchemaRecord(trade.id(), SchemaType.AVRO, "acme.Trade"));
        int calls = registry.byIdCalls();
        codec.read(bytes, true);
        assertThat(registry.byIdCalls()).as("then answered from the parsed schemas").isEqualTo(calls);

        byte[] truncated = Arrays.copyOf(bytes, bytes.length - 2);
        assertThatThrownBy(() -> codec.read(truncated, true)).isInstanceOf(DecodeException.class)
                .hasMessageStartingWith("bytes do not match the Avro schema");
        assertThat(codec.read(truncated, false).schemaId()).as("without decode only the header and schema are checked")
                .isEqualTo(trade.id());
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        assertThatThrownBy(() -> codec.read(longer, true)).hasMessageContaining("1 bytes left over");
        assertThatThrownBy(() -> codec.read(AvroBinary.write(schema, record), true)).isInstanceOf(DecodeException.class)
                .hasMessageContaining("schema registry header");
    }

    @Test
    void unknownIdsAndSchemasOfAnotherLanguageAreRefusedAndRemembered() throws Exception {
        RegisteredSchema event = registry.register("events-value", SchemaType.JSON, EVENT);
        AvroCodec codec = AvroCodec.registry(source, RecordPart.VALUE, FormatLimits.defaults());
        byte[] unknown = ConfluentWireFormat.frame(4711, new byte[] {2, 4});
        assertThatThrownBy(() -> read(codec, unknown, false)).isInstanceOf(UnknownSchemaIdException.class)
                .hasMessage("unknown schema id 4711");
        int calls = registry.byIdCalls();
        assertThatThrownBy(() -> codec.read(unknown, false)).as("remembered: no second lookup, no pending")
                .hasMessage("unknown schema id 4711");
        assertThat(registry.byIdCalls()).isEqualTo(calls);

        byte[] json = ConfluentWireFormat.frame(event.id(), "{\"id\":\"e1\"}".getBytes());
        assertThatThrownBy(() -> read(codec, json, false)).isInstanceOf(DecodeException.class)
                .hasMessage("schema id " + event.id() + " is unusable: a JSON schema, not Avro");
    }

    @Test
    void aRegistryOutageIsNotTheRecordsFault() throws Exception {
        SchemaSource down = new SchemaSource() {
            @Override
            public RegisteredSchema byId(int id) throws SchemaUnavailableException {
                throw new RegistryUnreachableException("cannot connect to the schema registry at http://10.0.0.1:8081", null);
            }

            @Override
            public RegisteredSchema latest(String subject) throws SchemaUnavailableException {
                throw new RegistryUnreachableException("down", null);
            }

            @Override
            public RegisteredSchema bySubjectVersion(String subject, int version) throws SchemaUnavailableException {
                throw new RegistryUnreachableException("down", null);
            }
        };
        try (CachingSchemaSource cached = CachingSchemaSource.create(down, RegistryCacheConfig.defaults(), new SimpleMeterRegistry())) {
            SchemaCodec codec = JsonSchemaCodec.registry(cached, RecordPart.VALUE, FormatLimits.defaults());
            assertThatThrownBy(() -> read(codec, ConfluentWireFormat.frame(3, "{}".getBytes()), true))
                    .isInstanceOf(DecodeOutageException.class)
                    .hasMessage("schema id 3 cannot be fetched from the schema registry now");
        }
    }

    @Test
    void protobufNamesTheMessageTypeItsIndexPathNamesAndDecodesIt() throws Exception {
        RegisteredSchema quotes = registry.register("quotes-value", SchemaType.PROTOBUF, QUOTES);
        ProtobufCodec codec = ProtobufCodec.registry(source, RecordPart.VALUE, null, false, FormatLimits.defaults());
        Descriptor quote = ProtobufSchemas.fromText(QUOTES, Map.of()).findMessageTypeByName("Quote");
        byte[] body = DynamicMessage.newBuilder(quote).setField(quote.findFieldByName("sym"), "ACME")
                .setField(quote.findFieldByName("size"), 42L).build().toByteArray();
        byte[] second = framed(quotes.id(), new int[] {1}, body);

        assertThat(read(codec, second, true)).isEqualTo(new SchemaRecord(quotes.id(), SchemaType.PROTOBUF, "acme.Quote"));
        assertThat(read(codec, framed(quotes.id(), new int[] {1, 0}, new byte[0]), true).recordName()).isEqualTo("acme.Quote.Leg");
        assertThat(read(codec, framed(quotes.id(), new int[] {0}, new byte[0]), false).recordName()).isEqualTo("acme.Header");
        assertThatThrownBy(() -> codec.read(framed(quotes.id(), new int[] {5}, body), false)).isInstanceOf(DecodeException.class)
                .hasMessageContaining("message index 5 out of range");
        // Cut inside the sym string (cut at a field's end, a message is shorter but still valid Protobuf).
        byte[] cut = Arrays.copyOf(second, second.length - 3);
        assertThatThrownBy(() -> codec.read(cut, true)).isInstanceOf(DecodeException.class)
                .hasMessageStartingWith("bytes do not match Protobuf type acme.Quote");
    }

    @Test
    void jsonSchemaIsValidatedWhenDecodingAndNamedByItsTitle() throws Exception {
        RegisteredSchema event = registry.register("events-value", SchemaType.JSON, EVENT);
        RegisteredSchema untitled = registry.register("other-value", SchemaType.JSON, "{\"type\":\"object\"}");
        JsonSchemaCodec codec = JsonSchemaCodec.registry(source, RecordPart.VALUE, FormatLimits.defaults());

        assertThat(read(codec, ConfluentWireFormat.frame(event.id(), "{\"id\":\"e1\",\"n\":7}".getBytes()), true))
                .isEqualTo(new SchemaRecord(event.id(), SchemaType.JSON, "acme.Event"));
        byte[] tooBig = ConfluentWireFormat.frame(event.id(), "{\"id\":\"e1\",\"n\":101}".getBytes());
        assertThatThrownBy(() -> codec.read(tooBig, true)).isInstanceOf(DecodeException.class)
                .hasMessageStartingWith("does not conform to JSON Schema id " + event.id() + ": /n: ")
                .hasMessageContaining("100");
        assertThatThrownBy(() -> codec.read(ConfluentWireFormat.frame(event.id(), "{\"n\":\"x\"}".getBytes()), true))
                .hasMessageContaining("(and 1 more)");
        assertThatThrownBy(() -> codec.read(ConfluentWireFormat.frame(event.id(), "{\"id\":".getBytes()), true))
                .hasMessage("not exactly one JSON value");
        assertThat(codec.read(tooBig, false).schemaId()).isEqualTo(event.id());
        assertThat(read(codec, ConfluentWireFormat.frame(untitled.id(), "{}".getBytes()), true).recordName()).isNull();
    }

    private static byte[] framed(int id, int[] path, byte[] body) {
        ByteArrayOutputStream out = ConfluentWireFormat.header(id, body.length + 4);
        ConfluentWireFormat.writeMessageIndexes(out, path);
        out.writeBytes(body);
        return out.toByteArray();
    }

    @Test
    void theSubjectStrategiesNameSubjectsAsConfluentsSerializersDo() {
        assertThat(SubjectNameStrategy.TOPIC.subject("orders", RecordPart.VALUE, "acme.Trade")).isEqualTo("orders-value");
        assertThat(SubjectNameStrategy.TOPIC.subject("orders", RecordPart.KEY, null)).isEqualTo("orders-key");
        assertThat(SubjectNameStrategy.RECORD.subject("orders", RecordPart.KEY, "acme.Trade")).isEqualTo("acme.Trade");
        assertThat(SubjectNameStrategy.TOPIC_RECORD.subject("orders", RecordPart.VALUE, "acme.Trade")).isEqualTo("orders-acme.Trade");
        assertThat(SubjectNameStrategy.TOPIC_RECORD.subject("orders", RecordPart.VALUE, null)).isNull();
        assertThat(List.of(SubjectNameStrategy.values()).stream().map(SubjectNameStrategy::yaml))
                .containsExactly("topic", "record", "topic-record");
        assertThat(SubjectNameStrategy.fromYaml(" Topic-Record ")).isEqualTo(SubjectNameStrategy.TOPIC_RECORD);
        assertThatThrownBy(() -> SubjectNameStrategy.fromYaml("topicname")).hasMessageContaining("topic, record or topic-record");
    }
}
