package io.sluice.bench.bridge;

import java.util.Random;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.sluice.format.AvroCodec;
import io.sluice.format.EncodeException;
import io.sluice.format.FormatLimits;
import io.sluice.format.SchemaFileException;

/**
 * The records of Lightstreamer's benchmark scenario 3 (seed 003): per key one JSON document of four 256-character
 * texts, four integers, three hobbies and a timestamp, of which each update changes the timestamp, one text and one
 * number; {@code id} (the key) and the hobbies never change. That shape is what makes field lists and deltas pay:
 * about 1.2 KB per record, of which an update changes some 290 bytes. The timestamp is the bench's latency stamp as a
 * string of {@value LatencyStamp#DIGITS} digits, so a subscriber finds it in a message or a patch without parsing.
 * Used by the publisher's one thread only.
 */
final class StructuredValues {

    /** The field that carries the stamp; a subscriber's field list must keep it for latency to be measured. */
    static final String STAMP_FIELD = "timestamp";

    static final String AVRO_SCHEMA = """
            {"type": "record", "name": "Update", "namespace": "io.sluice.bench", "fields": [
              {"name": "id", "type": "string"},
              {"name": "firstText", "type": "string"}, {"name": "secondText", "type": "string"},
              {"name": "thirdText", "type": "string"}, {"name": "fourthText", "type": "string"},
              {"name": "firstNumber", "type": "int"}, {"name": "secondNumber", "type": "int"},
              {"name": "thirdNumber", "type": "int"}, {"name": "fourthNumber", "type": "int"},
              {"name": "hobbies", "type": {"type": "array", "items": "string"}},
              {"name": "timestamp", "type": "string"}]}
            """;

    private static final String[] TEXTS = {"firstText", "secondText", "thirdText", "fourthText"};
    private static final String[] NUMBERS = {"firstNumber", "secondNumber", "thirdNumber", "fourthNumber"};
    private static final String[] HOBBIES = {"chess", "climbing", "cooking", "cycling", "gardening", "hiking", "painting",
            "photography", "reading", "running", "sailing", "swimming"};
    private static final char[] ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".toCharArray();
    private static final int TEXT_LENGTH = 256;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ObjectNode[] documents;
    private final AvroCodec avro;
    private final Random random;

    StructuredValues(ValueShape shape, int keys, long seed) {
        if (!shape.structured()) {
            throw new IllegalArgumentException(shape + " is not a structured shape");
        }
        this.random = new Random(seed);
        this.avro = shape == ValueShape.AVRO ? avroCodec() : null;
        this.documents = new ObjectNode[keys];
        for (int k = 0; k < keys; k++) {
            ObjectNode doc = JSON.createObjectNode().put("id", BenchTopic.key(k));
            for (String text : TEXTS) {
                doc.put(text, text());
            }
            for (String number : NUMBERS) {
                doc.put(number, random.nextInt());
            }
            var hobbies = doc.putArray("hobbies");
            for (int h = 0; h < 3; h++) {
                hobbies.add(HOBBIES[random.nextInt(HOBBIES.length)]);
            }
            doc.put(STAMP_FIELD, "");
            documents[k] = doc;
        }
    }

    /** The next update of key {@code key}, stamped {@code stamp}. */
    byte[] next(int key, long stamp) {
        ObjectNode doc = documents[key];
        doc.put(TEXTS[random.nextInt(TEXTS.length)], text());
        doc.put(NUMBERS[random.nextInt(NUMBERS.length)], random.nextInt());
        doc.put(STAMP_FIELD, LatencyStamp.digits(stamp));
        try {
            return avro != null ? avro.encode("bench", doc) : JSON.writeValueAsBytes(doc);
        } catch (EncodeException | JsonProcessingException e) {
            throw new IllegalStateException("the bench's own record does not encode: " + e.getMessage(), e);
        }
    }

    private String text() {
        char[] text = new char[TEXT_LENGTH];
        for (int i = 0; i < text.length; i++) {
            text[i] = ALPHANUMERIC[random.nextInt(ALPHANUMERIC.length)];
        }
        return new String(text);
    }

    private static AvroCodec avroCodec() {
        try {
            return AvroCodec.local(AVRO_SCHEMA, FormatLimits.defaults());
        } catch (SchemaFileException e) {
            throw new IllegalStateException("the bench's own Avro schema does not parse", e);
        }
    }
}
