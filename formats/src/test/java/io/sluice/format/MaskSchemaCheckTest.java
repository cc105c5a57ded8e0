package io.sluice.format;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.TextNode;

import io.sluice.format.mask.FieldMaskConfig;
import io.sluice.format.mask.MaskKind;
import io.sluice.format.mask.MaskRule;
import io.sluice.format.mask.Masks;
import io.sluice.format.registry.SchemaType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Masks#checkSchemas}: each mask applied alone to a sample of the topic's schema and written back, so that a
 * mask a field cannot carry is refused when the configuration is loaded, naming the rule's field.
 */
class MaskSchemaCheckTest {

    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes();
    private static final String ORDER = """
            {"type": "record", "name": "Order", "namespace": "acme", "fields": [
              {"name": "id", "type": "long"},
              {"name": "card", "type": {"type": "record", "name": "Card", "fields": [{"name": "number", "type": "string"}]}},
              {"name": "note", "type": ["null", "string"], "default": null},
              {"name": "tags", "type": {"type": "array", "items": "string"}},
              {"name": "amount", "type": "int"}]}""";

    private static FieldMaskConfig field(String path, MaskKind kind) {
        return new FieldMaskConfig(path, kind, kind == MaskKind.FIXED ? TextNode.valueOf("hidden") : null,
                kind == MaskKind.KEEP_FIRST || kind == MaskKind.KEEP_LAST ? 4 : null);
    }

    private static List<String> check(Codec codec, FieldMaskConfig... fields) {
        Masks masks = Masks.build(List.of(new MaskRule("orders", List.of(fields), null, null)), KEY);
        List<String> unchecked = new ArrayList<>();
        List<String> problems = masks.checkSchemas(Formats.of(Pattern.compile("orders"), new Formats.TopicFormat(null, codec, DecodeFailurePolicy.RAW)),
                masks.literalTopics(), unchecked::add);
        assertThat(unchecked).isEmpty();
        return problems;
    }

    @Test
    void avroFieldsThatCannotCarryTheirMaskAreNamed() throws Exception {
        AvroCodec codec = AvroCodec.local(ORDER, FormatLimits.defaults());

        // Each mask is checked alone, so one rule may name a field twice here (the configuration's validation would not).
        assertThat(check(codec, field("/card/number", MaskKind.KEEP_LAST), field("/card/number", MaskKind.HASH), field("/note", MaskKind.NULL),
                field("/note", MaskKind.KEEP_FIRST), field("/tags/0", MaskKind.FIXED), field("/note", MaskKind.REMOVE), field("/missing", MaskKind.NULL)))
                .isEmpty();

        List<String> problems = check(codec, field("/amount", MaskKind.KEEP_LAST), field("/id", MaskKind.NULL), field("/card/number", MaskKind.NULL),
                field("/id", MaskKind.FIXED));
        assertThat(problems).hasSize(4);
        assertThat(problems.get(0)).startsWith("masking.rules[0].fields[0] (/amount, topic orders): keepLast does not fit the schema: "
                + "/amount: keepLast needs a string, the value is a number");
        assertThat(problems.get(1)).startsWith("masking.rules[0].fields[1] (/id, topic orders): null does not fit the schema: /id");
        assertThat(problems.get(2)).startsWith("masking.rules[0].fields[2] (/card/number, topic orders): null does not fit the schema: /card/number");
        assertThat(problems.get(3)).startsWith("masking.rules[0].fields[3] (/id, topic orders): fixed does not fit the schema: /id");
        assertThat(check(codec, field("/amount", MaskKind.REMOVE))).singleElement().asString()
                .contains("remove does not fit the schema: /amount: missing required field");
    }

    @Test
    void theLatestRegisteredSchemaIsCheckedAndProtobufScalarsToo() throws Exception {
        InMemorySchemas registry = new InMemorySchemas();
        registry.register("orders-value", SchemaType.AVRO, ORDER.replace("{\"name\": \"amount\", \"type\": \"int\"}", "{\"name\": \"amount\", \"type\": \"string\"}"));
        registry.register("orders-value", SchemaType.AVRO, ORDER);
        assertThat(check(AvroCodec.registry(registry, RecordPart.VALUE, FormatLimits.defaults()), field("/amount", MaskKind.KEEP_LAST)))
                .as("the latest version, whose amount is an int").hasSize(1);

        ProtobufCodec proto = ProtobufCodec.localProto("""
                syntax = "proto3";
                package acme;
                message Order { int64 id = 1; string card_number = 2; int32 amount = 3; }""", Map.of(), "acme.Order", false, FormatLimits.defaults());
        assertThat(check(proto, field("/cardNumber", MaskKind.KEEP_LAST), field("/amount", MaskKind.NULL))).isEmpty();
        assertThat(check(proto, field("/amount", MaskKind.KEEP_LAST))).singleElement().asString()
                .startsWith("masking.rules[0].fields[0] (/amount, topic orders): keepLast does not fit the schema");
    }

    @Test
    void formatsWithoutASchemaAndPatternsAreLeftToTheirRecords() {
        Masks masks = Masks.build(List.of(new MaskRule("orders\\..*", List.of(field("/a", MaskKind.KEEP_LAST)), null, null),
                new MaskRule("orders\\.eu", List.of(field("/a", MaskKind.KEEP_LAST)), null, null)), KEY);
        assertThat(masks.literalTopics()).containsExactly("orders.eu");
        assertThat(Masks.literalTopic("orders")).hasValue("orders");
        assertThat(Masks.literalTopic("orders|payments")).isEmpty();
        assertThat(check(new JsonCodec(FormatLimits.defaults()), field("/a", MaskKind.KEEP_LAST))).isEmpty();
    }
}
