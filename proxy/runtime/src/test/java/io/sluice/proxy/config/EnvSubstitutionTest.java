package io.sluice.proxy.config;

import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import io.sluice.config.ConfigException;
import io.sluice.config.HostPort;

class EnvSubstitutionTest {

    private static final String TEMPLATE = """
            management:
              port: ${MGMT_PORT:-9999}
            virtualClusters:
              - name: ${CLUSTER}
                targetCluster:
                  bootstrapServers: ${KAFKA}
                  discoveryProperties:
                    ${PROP_KEY:-sasl.jaas.config}: ${JAAS}
                gateways:
                  - name: default
                    portIdentifiesNode:
                      bootstrapAddress: ${BIND:-127.0.0.1}:${PORT:-9192}
            """;

    @Test
    void substitutesValuesKeysAndDefaults() {
        ProxyConfig config = ProxyConfigLoader.parse(TEMPLATE, Map.of(
                "CLUSTER", "orders", "KAFKA", "k1:9092,k2:9092", "JAAS", "x", "PORT", "19192"));

        assertThat(config.management().port()).isEqualTo(9999);
        VirtualClusterConfig cluster = config.virtualClusters().get(0);
        assertThat(cluster.name()).isEqualTo("orders");
        assertThat(cluster.targetCluster().bootstrapServersString()).isEqualTo("k1:9092,k2:9092");
        assertThat(cluster.targetCluster().discoveryProperties()).containsExactly(Map.entry("sasl.jaas.config", "x"));
        assertThat(cluster.gateways().get(0).portIdentifiesNode().bootstrapAddress())
                .isEqualTo(new HostPort("127.0.0.1", 19192));
    }

    @Test
    void valuesWithYamlSyntaxStayPlainStrings() {
        String jaas = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" "
                + "password=\"p: #[not] {yaml}\";\n  evil: injected";

        ProxyConfig config = ProxyConfigLoader.parse(TEMPLATE, Map.of("CLUSTER", "c", "KAFKA", "k:1", "JAAS", jaas));

        assertThat(config.virtualClusters().get(0).targetCluster().discoveryProperties())
                .containsExactly(Map.entry("sasl.jaas.config", jaas));
    }

    @Test
    void aDefaultAppliesToAnEmptyVariableToo() {
        ProxyConfig config = ProxyConfigLoader.parse(TEMPLATE, Map.of("CLUSTER", "c", "KAFKA", "k:1", "JAAS", "x", "MGMT_PORT", ""));

        assertThat(config.management().port()).isEqualTo(9999);
    }

    @Test
    void doubleDollarEscapesAReference() {
        ProxyConfig config = ProxyConfigLoader.parse(TEMPLATE, Map.of("CLUSTER", "c", "KAFKA", "k:1",
                "JAAS", "unused", "PROP_KEY", "p"));
        String yaml = TEMPLATE.replace("${JAAS}", "\"$${JAAS} costs $5 and $${X:-y}\"");

        ProxyConfig escaped = ProxyConfigLoader.parse(yaml, Map.of("CLUSTER", "c", "KAFKA", "k:1"));

        assertThat(config.virtualClusters().get(0).targetCluster().discoveryProperties()).containsEntry("p", "unused");
        assertThat(escaped.virtualClusters().get(0).targetCluster().discoveryProperties())
                .containsEntry("sasl.jaas.config", "${JAAS} costs $5 and ${X:-y}");
    }

    @Test
    void substitutedTextIsNotScannedAgain() {
        ProxyConfig config = ProxyConfigLoader.parse(TEMPLATE, Map.of("CLUSTER", "c", "KAFKA", "k:1", "JAAS", "${SECRET}"));

        assertThat(config.virtualClusters().get(0).targetCluster().discoveryProperties())
                .containsEntry("sasl.jaas.config", "${SECRET}");
    }

    @Test
    void everyMissingVariableIsNamedWithItsField() {
        ConfigException e = catchThrowableOfType(ConfigException.class,
                () -> ProxyConfigLoader.parse(TEMPLATE, Map.of("CLUSTER", "c")));

        assertThat(e.problems()).containsExactly(
                "virtualClusters[0].targetCluster.bootstrapServers: environment variable KAFKA is not set",
                "virtualClusters[0].targetCluster.discoveryProperties.${PROP_KEY:-sasl.jaas.config}: environment variable JAAS is not set");
    }

    @Test
    void reportsMalformedReferences() {
        String yaml = TEMPLATE.replace("${CLUSTER}", "\"${CLUSTER\"").replace("${KAFKA}", "${1BAD}");

        ConfigException e = catchThrowableOfType(ConfigException.class,
                () -> ProxyConfigLoader.parse(yaml, Map.of("JAAS", "x")));

        assertThat(e.problems()).containsExactly(
                "virtualClusters[0].name: unterminated '${' in '${CLUSTER'",
                "virtualClusters[0].targetCluster.bootstrapServers: '${1BAD}' is not a valid variable reference");
    }

    @Test
    void substitutesInsideListsAndFilterConfigs() {
        String yaml = TEMPLATE + """
                filterDefinitions:
                  - name: f
                    type: ${FILTER_TYPE:-Audit}
                    config:
                      topics: ["${TOPIC}", b]
                """;

        ProxyConfig config = ProxyConfigLoader.parse(yaml, Map.of("CLUSTER", "c", "KAFKA", "k:1", "JAAS", "x", "TOPIC", "orders"));

        assertThat(config.filterDefinitions().get(0).type()).isEqualTo("Audit");
        assertThat(config.filterDefinitions().get(0).config().get("topics").get(0).asText()).isEqualTo("orders");
    }

    @Test
    void aKeyThatCollidesAfterSubstitutionIsAnError() {
        String yaml = TEMPLATE.replace("${PROP_KEY:-sasl.jaas.config}: ${JAAS}", "${A}: 1\n        b: 2");

        assertThatThrownBy(() -> ProxyConfigLoader.parse(yaml, Map.of("CLUSTER", "c", "KAFKA", "k:1", "A", "b")))
                .hasMessageContaining("virtualClusters[0].targetCluster.discoveryProperties.b: becomes the duplicate field 'b'");
    }
}
