package io.sluice.filter.audit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import io.sluice.config.ConfigLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The config binds from YAML with its defaults; every bad value stops the start naming its field; validation starts nothing. */
class AuditConfigTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private static AuditConfig bind(String yaml) throws Exception {
        return ConfigLoader.bind(YAML.readTree(yaml), AuditConfig.class, "filterDefinitions[0].config");
    }

    @Test
    void defaultsFillWhatIsLeftOutAndProducerSettingsAreStrings() throws Exception {
        AuditConfig config = bind("""
                file: {path: /tmp/audit.jsonl}
                kafka:
                  topic: sluice-audit
                  bootstrapServers: kafka:9092
                  producerConfig: {compression.type: zstd, linger.ms: 20}
                """);
        assertThat(config.sampleInterval()).isEqualTo(Duration.ofSeconds(60));
        assertThat(config.maxSampledPrincipals()).isEqualTo(10_000);
        assertThat(config.file()).isEqualTo(new AuditConfig.File("/tmp/audit.jsonl", 100L * 1024 * 1024, 10, 8L * 1024 * 1024));
        assertThat(config.stdout()).isNull();
        assertThat(config.kafka().producerConfig()).isEqualTo(Map.of("compression.type", "zstd", "linger.ms", "20"));
        assertThat(bind("stdout: {}\nsampleInterval: 5m").sampleInterval()).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void badValuesAreRefusedNamingTheField() {
        assertThatThrownBy(() -> bind("sampleInterval: 10s")).hasMessageContaining("file, stdout, kafka: at least one sink is required");
        assertThatThrownBy(() -> bind("stdout: {}\nsampleInterval: 500ms")).hasMessageContaining("sampleInterval: must be at least 1s");
        assertThatThrownBy(() -> bind("file: {maxFiles: 3}")).hasMessageContaining("file.path: required");
        assertThatThrownBy(() -> bind("file: {path: /tmp/a, maxFiles: 0}")).hasMessageContaining("file.maxFiles");
        assertThatThrownBy(() -> bind("file: {path: /tmp/a, maxFileBytes: 10}")).hasMessageContaining("file.maxFileBytes");
        assertThatThrownBy(() -> bind("stdout: {bufferBytes: 1000}")).hasMessageContaining("stdout.bufferBytes: must be at least 262144");
        assertThatThrownBy(() -> bind("kafka: {topic: t}")).hasMessageContaining("kafka.bootstrapServers: required");
        assertThatThrownBy(() -> bind("kafka: {topic: t, bootstrapServers: k:9092, producerConfig: {acks: [1]}}"))
                .hasMessageContaining("kafka.producerConfig.acks: must be a single value");
        assertThatThrownBy(() -> bind("stdout: {}\nfiles: {path: /tmp/a}")).hasMessageContaining("filterDefinitions[0].config").hasMessageContaining("files");
        assertThatThrownBy(() -> bind("stdout: {colour: true}")).hasMessageContaining("colour");
    }

    @Test
    void validationChecksTheDirectoryAndTheProducerSettingsAndStartsNothing(@TempDir Path dir) throws Exception {
        Audit.check("audit", bind("file: {path: \"" + dir.resolve("audit.jsonl") + "\"}\nkafka: {topic: t, bootstrapServers: \"127.0.0.1:1\"}"));
        assertThat(dir.toFile().list()).as("validation creates no file").isEmpty();
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().startsWith("sluice-audit-") || t.getName().contains("sluice-audit-audit"));

        assertThatThrownBy(() -> Audit.check("audit", bind("file: {path: \"" + dir.resolve("nowhere/audit.jsonl") + "\"}")))
                .hasMessageStartingWith("file.path: the directory").hasMessageContaining("does not exist");
        assertThatThrownBy(() -> Audit.check("audit", bind("kafka: {topic: t, bootstrapServers: k:9092, producerConfig: {key.serializer: x}}")))
                .hasMessage("kafka.producerConfig.key.serializer: set by the Audit filter");
        assertThatThrownBy(() -> Audit.check("audit", bind("kafka: {topic: t, bootstrapServers: k:9092, producerConfig: {bootstrap.servers: x}}")))
                .hasMessageContaining("from kafka.bootstrapServers");
        assertThatThrownBy(() -> Audit.check("audit", bind("kafka: {topic: t, bootstrapServers: k:9092, producerConfig: {acks: sometimes}}")))
                .hasMessageStartingWith("kafka.producerConfig: ").hasMessageContaining("acks");
    }
}
