package io.sluice.proxy.server;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.config.ConfigException;
import io.sluice.proxy.filter.FilterFactoryContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link FilterFactoryContext#bindConfig}: a filter's nested plugin config, declared as {@code Object} by a filter
 * that has no binding library (what Jackson gives such a field: maps, lists, scalars) or as a tree, is bound with the
 * proxy's strict rules and its problems name the field under the filter definition.
 */
class NestedConfigBindingTest {

    record Plugin(String endpoint, Duration timeout) {
    }

    private final FilterFactoryContext context = new FilterDefinitions.FactoryContext("enc", new SimpleMeterRegistry(), null);

    @Test
    void bindsPlainValuesAsAFilterWithoutJacksonDeclaresThem() {
        Plugin plugin = context.bindConfig(Map.of("endpoint", "https://kms:8200", "timeout", "5s"), Plugin.class, "kmsConfig");
        assertThat(plugin).isEqualTo(new Plugin("https://kms:8200", Duration.ofSeconds(5)));
    }

    @Test
    void bindsATree() {
        var tree = JsonNodeFactory.instance.objectNode().put("endpoint", "https://kms:8200");
        assertThat(context.bindConfig(tree, Plugin.class, "kmsConfig").endpoint()).isEqualTo("https://kms:8200");
    }

    @Test
    void absentBindsLikeAnEmptyObject() {
        assertThat(context.bindConfig(null, Plugin.class, "kmsConfig")).isEqualTo(new Plugin(null, null));
    }

    @Test
    void unknownFieldIsAnErrorNamingItUnderTheFilterDefinition() {
        assertThatThrownBy(() -> context.bindConfig(Map.of("endpoitn", "https://kms:8200"), Plugin.class, "kmsConfig"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("filterDefinitions[enc].config.kmsConfig")
                .hasMessageContaining("endpoitn");
    }
}
