package io.sluice.format;

import java.math.BigDecimal;
import java.util.Arrays;

import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.sluice.format.registry.SchemaType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every size a schema or a record declares is bounded before the work it implies (issue 30): each case here is the
 * hostile bytes of one attack, decoded by the codec alone, and must end as a {@link DecodeException} (which the topic's
 * {@code onDecodeFailure} policy handles), never another throwable and never the unbounded work.
 */
class HostileRecordBoundsTest {

    private final InMemorySchemas registry = new InMemorySchemas();
    private final FormatLimits limits = FormatLimits.defaults();
    private final AvroCodec avro = AvroCodec.registry(registry, RecordPart.VALUE, limits);
    private final ProtobufCodec protobuf = ProtobufCodec.registry(registry, RecordPart.VALUE, null, false, limits);

    private int avroSchema(String text) {
        return registry.register("s" + System.nanoTime(), SchemaType.AVRO, text).id();
    }

    @Test
    void aDecimalWhosePrecisionIsBeyondTheBridgesMaximumIsUndecodable() {
        int id = avroSchema(HostileBytes.HUGE_DECIMAL);
        // 00 <id> 02 01: seven bytes
        byte[] record = HostileBytes.framed(id, new byte[] {2, 1});
        assertThat(record).hasSize(7);
        assertThatThrownBy(() -> avro.decode("t", record)).isInstanceOf(DecodeException.class)
                .hasMessageContaining("precision 2147483647");
    }

    @Test
    void publishingToADecimalBeyondTheMaximumIsRefusedBeforeAnyScaling() {
        // Before: BigDecimal.setScale(2^31-1), a multiplication by 10^(2^31-1), on the publishing thread.
        registry.register("t-value", SchemaType.AVRO, HostileBytes.HUGE_DECIMAL);
        assertThatThrownBy(() -> avro.encode("t", com.fasterxml.jackson.databind.node.TextNode.valueOf("1")))
                .isInstanceOf(EncodeException.class).hasMessageContaining("precision 2147483647");
    }

    @Test
    void aScaleAbovePrecisionIsUndecodableEvenIfAvroAcceptedIt() {
        // Avro ignores an invalid decimal (it reads as bytes): then its bytes are base64, no decimal work at all.
        int id = avroSchema("{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":2,\"scale\":3}");
        assertThat(decode(avro, HostileBytes.framed(id, HostileBytes.avroBytes(new byte[] {1}))).textValue()).isEqualTo("AQ==");
    }

    @Test
    void aMegabyteUnscaledValueOfADecimal38IsRefusedByItsLengthAlone() {
        int id = avroSchema(HostileBytes.DECIMAL_38_2);
        byte[] unscaled = new byte[1_000_000];
        Arrays.fill(unscaled, (byte) 0x35);
        assertThatThrownBy(() -> avro.decode("t", HostileBytes.framed(id, HostileBytes.avroBytes(unscaled))))
                .isInstanceOf(DecodeException.class).hasMessageContaining("more than 38 digits");
    }

    @Test
    void decimalsWithinTheirPrecisionStayExactIncludingSignExtendedFixed() {
        Schema bytes38 = new Schema.Parser().parse(HostileBytes.DECIMAL_38_2);
        BigDecimal max = new BigDecimal("999999999999999999999999999999999999.99");
        Conversions.DecimalConversion conversion = new Conversions.DecimalConversion();
        int id = avroSchema(HostileBytes.DECIMAL_38_2);
        for (BigDecimal v : new BigDecimal[] {max, max.negate(), new BigDecimal("0.00"), new BigDecimal("-0.01")}) {
            byte[] body = AvroBinary.write(bytes38, conversion.toBytes(v, bytes38, LogicalTypes.decimal(38, 2)));
            assertThat(decode(avro, HostileBytes.framed(id, body)).textValue()).isEqualTo(v.toPlainString());
        }
        // 39 digits: one more than the schema allows, though it fits the same 16 bytes.
        byte[] over = AvroBinary.write(bytes38, conversion.toBytes(new BigDecimal("1000000000000000000000000000000000000.00"),
                bytes38, LogicalTypes.decimal(39, 2)));
        assertThatThrownBy(() -> avro.decode("t", HostileBytes.framed(id, over))).isInstanceOf(DecodeException.class)
                .hasMessageContaining("more than 38 digits");
        // fixed(16) holding decimal(9,2): the unscaled value sign-extended over 16 bytes.
        String fixedText = "{\"type\":\"fixed\",\"name\":\"F\",\"size\":16,\"logicalType\":\"decimal\",\"precision\":9,\"scale\":2}";
        Schema fixed = new Schema.Parser().parse(fixedText);
        int fixedId = avroSchema(fixedText);
        org.apache.avro.generic.GenericFixed value = conversion.toFixed(new BigDecimal("-1234567.89"), fixed, LogicalTypes.decimal(9, 2));
        assertThat(decode(avro, HostileBytes.framed(fixedId, AvroBinary.write(fixed, value))).textValue()).isEqualTo("-1234567.89");
    }

    @Test
    void zeroByteArrayItemsAreBoundedByTheRecordsSize() {
        int id = avroSchema(HostileBytes.NULL_ARRAY);
        byte[] body = HostileBytes.nullArray(6_000);
        assertThatThrownBy(() -> avro.decode("t", HostileBytes.framed(id, body))).isInstanceOf(DecodeException.class)
                .hasMessageContaining("items");
        // A block of nulls may still declare as many items as bytes remain (here the end marker's one).
        Schema schema = new Schema.Parser().parse(HostileBytes.NULL_ARRAY);
        java.util.List<Object> nulls = java.util.Collections.nCopies(1, null);
        assertThat(decode(avro, HostileBytes.framed(id, AvroBinary.write(schema, new GenericData.Array<>(schema, nulls)))).size())
                .isEqualTo(1);
    }

    @Test
    void theMostNegativeLongIsAStringAndEveryOtherBoundaryIsRight() {
        int id = avroSchema("\"long\"");
        long safe = (1L << 53) - 1;
        assertThat(decode(avro, HostileBytes.framed(id, HostileBytes.avroLong(Long.MIN_VALUE))).isTextual()).isTrue();
        assertThat(decode(avro, HostileBytes.framed(id, HostileBytes.avroLong(Long.MIN_VALUE))).textValue())
                .isEqualTo("-9223372036854775808");
        assertThat(decode(avro, HostileBytes.framed(id, HostileBytes.avroLong(Long.MIN_VALUE + 1))).textValue())
                .isEqualTo("-9223372036854775807");
        assertThat(decode(avro, HostileBytes.framed(id, HostileBytes.avroLong(Long.MAX_VALUE))).textValue())
                .isEqualTo("9223372036854775807");
        for (long v : new long[] {safe, -safe}) {
            JsonNode n = decode(avro, HostileBytes.framed(id, HostileBytes.avroLong(v)));
            assertThat(n.isIntegralNumber()).as("%d", v).isTrue();
            assertThat(n.longValue()).isEqualTo(v);
        }
        for (long v : new long[] {safe + 1, -safe - 1, safe + 2}) {
            assertThat(decode(avro, HostileBytes.framed(id, HostileBytes.avroLong(v))).textValue()).as("%d", v).isEqualTo(Long.toString(v));
        }
    }

    @Test
    void deeplyNestedProtoTextIsASchemaErrorNotAStackOverflow() {
        int id = registry.register("nested", SchemaType.PROTOBUF, HostileBytes.nestedProto(20_000)).id();
        assertThatThrownBy(() -> protobuf.decode("t", HostileBytes.protobufFramed(id, new byte[0])))
                .isInstanceOf(DecodeException.class).hasMessageContaining("nest");
        // Nesting within the bound still parses.
        int fine = registry.register("nested-fine", SchemaType.PROTOBUF, HostileBytes.nestedProto(10)).id();
        assertThat(decode(protobuf, HostileBytes.protobufFramed(fine, new byte[0])).isObject()).isTrue();
    }

    @Test
    void aSelfNestedAnyIsBoundedByTheNestingLimit() {
        int id = registry.register("any-holder", SchemaType.PROTOBUF, HostileBytes.ANY_HOLDER).id();
        assertThatThrownBy(() -> protobuf.decode("t", HostileBytes.protobufFramed(id, HostileBytes.selfNestedAny(5_000))))
                .isInstanceOf(DecodeException.class).hasMessageContaining("nests deeper than");
        // A few levels are fine and print as JsonFormat prints them.
        JsonNode shallow = decode(protobuf, HostileBytes.protobufFramed(id, HostileBytes.selfNestedAny(3)));
        assertThat(shallow.at("/any/@type").textValue()).isEqualTo("type.googleapis.com/google.protobuf.Any");
        assertThat(shallow.at("/any/value/value/value/@type").textValue()).isEqualTo("type.googleapis.com/hostile.Holder");
    }

    private static JsonNode decode(Codec codec, byte[] bytes) {
        try {
            return codec.decode("t", bytes);
        }
        catch (DecodeException e) {
            throw new AssertionError(e);
        }
    }
}
