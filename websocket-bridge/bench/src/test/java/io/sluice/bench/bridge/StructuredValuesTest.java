package io.sluice.bench.bridge;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.netty.buffer.Unpooled;
import io.sluice.format.AvroCodec;
import io.sluice.format.FormatLimits;

import static org.assertj.core.api.Assertions.assertThat;

class StructuredValuesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void eachUpdateChangesTheTimestampOneTextAndOneNumberAndNothingElse() throws Exception {
        StructuredValues values = new StructuredValues(ValueShape.JSON, 3, 7);
        JsonNode previous = JSON.readTree(values.next(1, 100));
        assertThat(previous.get("id").asText()).isEqualTo("k1");
        assertThat(previous.get("firstText").asText()).hasSize(256).matches("[A-Za-z0-9]+");
        assertThat(previous.get("hobbies")).hasSize(3);
        for (int i = 0; i < 50; i++) {
            JsonNode next = JSON.readTree(values.next(1, 101 + i));
            List<String> changed = changed(previous, next);
            assertThat(changed).contains(StructuredValues.STAMP_FIELD).hasSizeBetween(1, 3);
            assertThat(changed.stream().filter(f -> f.endsWith("Text"))).hasSizeLessThanOrEqualTo(1);
            assertThat(changed.stream().filter(f -> f.endsWith("Number"))).hasSizeLessThanOrEqualTo(1);
            assertThat(changed).doesNotContain("id", "hobbies");
            previous = next;
        }
        assertThat(JSON.writeValueAsBytes(previous).length).isBetween(1100, 1400);
    }

    @Test
    void theStampIsWhereASubscriberLooksForIt() throws Exception {
        byte[] value = new StructuredValues(ValueShape.JSON, 1, 1).next(0, 1_234_567_890_123L);
        byte[] marker = "\"timestamp\":\"".getBytes();
        assertThat(LatencyStamp.find(Unpooled.wrappedBuffer(value), 0, value.length, marker)).isEqualTo(1_234_567_890_123L);
    }

    @Test
    void avroValuesDecodeWithTheSchemaTheBenchGivesTheBridgeToTheSameDocumentAsJson() throws Exception {
        StructuredValues json = new StructuredValues(ValueShape.JSON, 2, 5);
        StructuredValues avro = new StructuredValues(ValueShape.AVRO, 2, 5);
        AvroCodec codec = AvroCodec.local(StructuredValues.AVRO_SCHEMA, FormatLimits.defaults());
        for (int i = 0; i < 10; i++) {
            byte[] asJson = json.next(i % 2, i);
            byte[] asAvro = avro.next(i % 2, i);
            assertThat(asAvro.length).isLessThan(asJson.length);
            assertThat(codec.decode("bench", asAvro)).isEqualTo(JSON.readTree(asJson));
        }
    }

    private static List<String> changed(JsonNode before, JsonNode after) {
        List<String> changed = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = after.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            if (!field.getValue().equals(before.get(field.getKey()))) {
                changed.add(field.getKey());
            }
        }
        return changed;
    }
}
