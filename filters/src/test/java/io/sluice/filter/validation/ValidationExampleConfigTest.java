package io.sluice.filter.validation;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sluice.config.ConfigException;
import io.sluice.config.ConfigLoader;
import io.sluice.proxy.config.ProxyConfig;
import io.sluice.proxy.config.ProxyConfigLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** config/examples/validation.yaml loads and binds to the filter's config; a mistyped field is named by the binder. */
class ValidationExampleConfigTest {

    private static final Path EXAMPLE = Path.of("../config/examples/validation.yaml");
    private static final Map<String, String> ENV = Map.of("KAFKA_BOOTSTRAP", "kafka:9092", "SCHEMA_REGISTRY_URL", "http://registry:8081");

    private static RecordValidation.Config bind(String yaml) throws Exception {
        ProxyConfig proxy = ProxyConfigLoader.parse(yaml, ENV);
        return ConfigLoader.bind(proxy.filterDefinitions().get(0).config(), new RecordValidation().configType(), "filterDefinitions[0].config");
    }

    @Test
    void theExampleBindsItsRulesAndRegistryAndPassesTheFiltersOwnChecks() throws Exception {
        RecordValidation.Config config = bind(Files.readString(EXAMPLE));

        assertThat(config.schemaRegistry().url()).isEqualTo("http://registry:8081");
        assertThat(config.rules()).hasSize(2);
        assertThat(config.rules().get(0).topics()).isEqualTo(List.of("orders"));
        assertThat(config.rules().get(0).value()).isEqualTo(new RecordValidation.PartConfig("avro", "topic", "any", true, null));
        assertThat(config.rules().get(0).key()).isEqualTo(new RecordValidation.PartConfig("json", null, null, null, "accept"));
        assertThat(config.rules().get(1).value().format()).isEqualTo("json");
        RecordValidation.checked(config);
        assertThat(config.schemaRegistry().cache().maxSchemas()).as("the registry section's defaults, as the bridge's")
                .isEqualTo(io.sluice.format.registry.RegistryCacheConfig.DEFAULT_MAX_SCHEMAS);
    }

    @Test
    void aMistypedFieldIsNamedWithItsPath() throws Exception {
        String yaml = Files.readString(EXAMPLE).replace("subjectNameStrategy: topic", "subjectNamingStrategy: topic")
                .replace("url: ${SCHEMA_REGISTRY_URL}", "url: ${SCHEMA_REGISTRY_URL}\n        timeOut: 5s");
        assertThatThrownBy(() -> bind(yaml)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("filterDefinitions[0].config.rules[0].value.subjectNamingStrategy")
                .hasMessageContaining("filterDefinitions[0].config.schemaRegistry.timeOut");
    }

    @Test
    void theExampleNeedsTheRegistryUrl() {
        assertThatThrownBy(() -> ProxyConfigLoader.parse(Files.readString(EXAMPLE), Map.of("KAFKA_BOOTSTRAP", "kafka:9092")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("SCHEMA_REGISTRY_URL is not set");
    }
}
