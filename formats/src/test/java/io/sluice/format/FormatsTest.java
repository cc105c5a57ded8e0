package io.sluice.format;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FormatsTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @Test
    void firstMatchingRuleWinsAndLocalProtoImportsResolveBesideTheFile(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("acme"));
        Files.writeString(dir.resolve("acme/common.proto"), "syntax = \"proto3\"; package acme; message Money { int64 cents = 1; }");
        Files.writeString(dir.resolve("pos.proto"), """
                syntax = "proto3"; package acme; import "acme/common.proto"; import "google/protobuf/timestamp.proto";
                message Position { Money value = 1; google.protobuf.Timestamp at = 2; }""");
        List<FormatRule> rules = List.of(YAML.readValue("""
                - topics: "orders\\\\..*"
                  value: {type: avro, schemaFile: %s}
                  key: {type: string}
                  onDecodeFailure: gap
                - topics: positions
                  value: {type: protobuf, schemaFile: %s, message: acme.Position}
                """.formatted(write(dir, "o.avsc", "{\"type\": \"int\"}"), dir.resolve("pos.proto")),
                FormatRule[].class));
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < rules.size(); i++) {
            rules.get(i).validate(i, false, problems);
        }
        assertThat(problems).isEmpty();

        Formats formats = Formats.build(rules, null, FormatLimits.defaults());

        assertThat(formats.forTopic("orders.eu").onDecodeFailure()).isEqualTo(DecodeFailurePolicy.GAP);
        assertThat(formats.forTopic("orders.eu").key()).isInstanceOf(StringCodec.class);
        assertThat(formats.forTopic("ordersXeu")).isNull();
        assertThat(formats.forTopic("positions").onDecodeFailure()).isEqualTo(DecodeFailurePolicy.RAW);
        assertThat(formats.forTopic("positions").value().decode("positions", new byte[] {0x0a, 2, 0x08, 5}))
                .isEqualTo(new ObjectMapper().readTree("{\"value\": {\"cents\": \"5\"}}"));
    }

    @Test
    void validationNamesTheBadField() throws Exception {
        List<String> problems = new ArrayList<>();
        List<FormatRule> rules = List.of(YAML.readValue("""
                - topics: "orders("
                  value: {type: avro}
                - topics: t
                  value: {type: xml}
                - topics: t
                  value: {type: protobuf, schemaFile: /x.desc}
                - topics: t
                  key: {type: string, schemaFile: /x}
                """, FormatRule[].class));
        for (int i = 0; i < rules.size(); i++) {
            rules.get(i).validate(i, false, problems);
        }
        assertThat(problems).anyMatch(p -> p.startsWith("formats[0].topics: not a regular expression"))
                .contains("formats[0].value.registry: needs schemaRegistry.url")
                .anyMatch(p -> p.startsWith("formats[1].value.type: must be one of"))
                .contains("formats[2].value.message: required with a local protobuf schemaFile")
                .contains("formats[3].key: string takes no registry or schemaFile");
    }

    @Test
    void aBadSchemaFileStopsStartupNamingIt(@TempDir Path dir) throws Exception {
        List<FormatRule> rules = List.of(YAML.readValue("[{topics: t, value: {type: avro, schemaFile: %s}}]"
                .formatted(write(dir, "bad.avsc", "{\"type\": \"nope\"}")), FormatRule[].class));
        assertThatThrownBy(() -> Formats.build(rules, null, FormatLimits.defaults()))
                .isInstanceOf(SchemaFileException.class).hasMessageStartingWith("formats[0].value: not an Avro schema");
    }

    private static Path write(Path dir, String name, String text) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, text);
        return file;
    }
}
