package io.sluice.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The stages every server's loader shares; the proxy's and the bridge's own sections are tested in their modules. */
class ConfigLoaderTest {

    @TempDir
    Path dir;

    record AuditSettings(List<String> topics, Duration flushInterval, int batchSize) {
    }

    @Test
    void parseBindsSubstitutesAndThenValidates() {
        AuditSettings settings = ConfigLoader.parse("topics: [\"${TOPIC}\"]\nflushInterval: 5m\nbatchSize: ${SIZE:-10}\n",
                Map.of("TOPIC", "orders"), AuditSettings.class, s -> List.of());

        assertThat(settings).isEqualTo(new AuditSettings(List.of("orders"), Duration.ofMinutes(5), 10));
    }

    @Test
    void parseReportsEveryValidationProblem() {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse("batchSize: 0\n", Map.of(),
                AuditSettings.class, s -> List.of("batchSize: must be positive", "topics: is required")));

        assertThat(e.problems()).containsExactly("batchSize: must be positive", "topics: is required");
    }

    @Test
    void validationDoesNotRunWhenBindingFailed() {
        assertThatThrownBy(() -> ConfigLoader.parse("batchSze: 1\n", Map.of(), AuditSettings.class, s -> {
            throw new AssertionError("validated a config that did not bind");
        })).isInstanceOf(ConfigException.class).hasMessage("Invalid configuration: batchSze: unknown field");
    }

    @Test
    void rejectsDuplicateKeys() {
        assertThatThrownBy(() -> ConfigLoader.tree("management: {port: 1, port: 2}\n", Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("port");
    }

    @Test
    void reportsYamlSyntaxErrorsWithTheirLocation() {
        assertThatThrownBy(() -> ConfigLoader.tree("virtualClusters:\n  - name: [unclosed\n", Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("line ");
    }

    @Test
    void rejectsAnEmptyFile() {
        assertThatThrownBy(() -> ConfigLoader.tree("", Map.of()))
                .hasMessage("Invalid configuration: (root): the configuration is empty");
    }

    @Test
    void rejectsATopLevelList() {
        assertThatThrownBy(() -> ConfigLoader.tree("- a\n- b\n", Map.of()))
                .hasMessageContaining("(root): expected a mapping");
    }

    @Test
    void namesAMissingFile() {
        Path missing = dir.resolve("nope.yaml");

        assertThatThrownBy(() -> ConfigLoader.read(missing))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid configuration: " + missing + ": configuration file does not exist");
    }

    @Test
    void rejectsAFractionWhereAnIntegerIsExpected() {
        assertThatThrownBy(() -> ConfigLoader.bind(ConfigLoader.tree("batchSize: 1.5\n", Map.of()), AuditSettings.class, "audit"))
                .hasMessageContaining("audit.batchSize:");
    }

    @Test
    void bindNamesTheBadFieldUnderTheGivenPath() throws Exception {
        JsonNode badValue = ConfigLoader.mapper().readTree("{topics: [a], flushInterval: soon}");
        JsonNode unknownFields = ConfigLoader.mapper().readTree("{topics: [a], batchSze: 3, colour: {r: 1}}");

        assertThatThrownBy(() -> ConfigLoader.bind(badValue, AuditSettings.class, "filterDefinitions[2].config"))
                .hasMessage("Invalid configuration: filterDefinitions[2].config.flushInterval: invalid value 'soon' (expected "
                        + DurationDeserializer.EXPECTED + ")");
        assertThat(catchThrowableOfType(ConfigException.class,
                () -> ConfigLoader.bind(unknownFields, AuditSettings.class, "filterDefinitions[2].config")).problems())
                .containsExactly("filterDefinitions[2].config.batchSze: unknown field", "filterDefinitions[2].config.colour: unknown field");
    }

    @Test
    void bindTreatsAMissingConfigAsEmpty() {
        AuditSettings settings = ConfigLoader.bind(null, AuditSettings.class, "filterDefinitions[0].config");

        assertThat(settings).isEqualTo(new AuditSettings(null, null, 0));
    }
}
