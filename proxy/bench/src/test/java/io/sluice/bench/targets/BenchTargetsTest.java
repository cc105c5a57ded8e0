package io.sluice.bench.targets;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BenchTargetsTest {

    private static final Map<String, String> ENV = BenchTarget.proxyEnvironment("127.0.0.1:9092", "127.0.0.1:9192", 9190);

    @Test
    void directHasNoProxyAndPassthroughLoadsAndRuns() {
        List<BenchTarget> targets = BenchTargets.resolve(List.of("direct", "passthrough"));

        assertThat(targets.get(0).direct()).isTrue();
        assertThat(targets.get(1).direct()).isFalse();
        assertThat(targets.get(1).unavailableReason(ENV)).isEmpty();
    }

    @Test
    void aTargetWhoseFilterIsNotInThisBuildSaysWhichFilter() {
        BenchTarget encryption = BenchTargets.resolve("encryption");

        assertThat(encryption.unavailableReason(ENV)).hasValueSatisfying(reason -> assertThat(reason).contains("RecordEncryption"));
        assertThat(BenchTargets.resolve("jwt").unavailableReason(ENV)).hasValueSatisfying(reason -> assertThat(reason).contains("JwtAuth"));
        assertThat(BenchTargets.resolve("jwt-audit").unavailableReason(ENV)).hasValueSatisfying(reason -> assertThat(reason).contains("Audit"));
        assertThat(BenchTargets.resolve("validating").unavailableReason(ENV)).hasValueSatisfying(reason -> assertThat(reason).contains("RecordValidation"));
        assertThat(BenchTargets.resolve("masking").unavailableReason(ENV)).hasValueSatisfying(reason -> assertThat(reason).contains("FieldMasking"));
    }

    @Test
    void theValidatingTargetsClientsWriteJsonOfTheSameSizeAndReadTheSendTimeBack(@TempDir Path dir) throws Exception {
        BenchTarget validating = BenchTargets.resolve("validating");
        assertThat(validating.clientConfig()).containsEntry("interceptor.classes", JsonBenchValues.class.getName());
        assertThat(BenchTargets.resolve("passthrough").clientConfig()).isEmpty();
        Path file = Files.writeString(dir.resolve("v.yaml"), validating.proxyConfigTemplate());
        assertThat(BenchTargets.resolve("validating=" + file).clientConfig()).as("a file of the same name is the user's").isEmpty();

        byte[] value = java.nio.ByteBuffer.allocate(1024).putLong(1234567890123L).array();
        byte[] json = JsonBenchValues.toJson(value);
        assertThat(json).hasSize(1024);
        assertThat(new String(json, java.nio.charset.StandardCharsets.US_ASCII)).startsWith("{\"t\":1234567890123,\"p\":\"aaa").endsWith("aa\"}");
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(json).get("t").asLong()).isEqualTo(1234567890123L);
        assertThat(java.nio.ByteBuffer.wrap(JsonBenchValues.fromJson(json)).getLong()).isEqualTo(1234567890123L);
        assertThat(JsonBenchValues.toJson(new byte[4])).as("too short for the document: it grows to fit").hasSizeGreaterThan(4);
    }

    @Test
    void unknownNameListsTheKnownOnes() {
        assertThatThrownBy(() -> BenchTargets.resolve("passthru"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown target 'passthru'")
                .hasMessageContaining("direct, passthrough, encryption, jwt")
                .hasMessageContaining("name=path/to/proxy.yaml");
    }

    @Test
    void aNamedConfigurationFileIsATarget(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("mine.yaml"), BenchTargets.resolve("passthrough").proxyConfigTemplate());

        BenchTarget mine = BenchTargets.resolve("mine=" + file);

        assertThat(mine.name()).isEqualTo("mine");
        assertThat(mine.unavailableReason(ENV)).isEmpty();
        assertThatThrownBy(() -> BenchTargets.resolve("gone=" + dir.resolve("gone.yaml")))
                .hasMessageContaining("target 'gone'").hasMessageContaining("does not exist");
    }

    @Test
    void aConfigurationThatDoesNotLoadIsReportedNotThrown(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("bad.yaml"), "virtualClusters: [ { name: x } ]\nnonsense: 1\n");

        assertThat(BenchTargets.resolve("bad=" + file).unavailableReason(ENV))
                .hasValueSatisfying(reason -> assertThat(reason).contains("does not load"));
    }
}
