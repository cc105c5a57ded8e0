package io.sluice.filter.routing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sluice.config.ConfigException;
import io.sluice.config.ConfigLoader;
import io.sluice.proxy.config.ProxyConfigLoader;
import io.sluice.proxy.config.FilterDefinition;
import io.sluice.proxy.config.ProxyConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** config/examples/key-routing.yaml must keep loading, and route the live-scores endpoints of the Kafkorama example. */
class KeyRoutingExampleConfigTest {

    private static final Path EXAMPLE = Path.of("../config/examples/key-routing.yaml");

    private static RouteTable exampleRoutes() throws Exception {
        ProxyConfig config = ProxyConfigLoader.parse(Files.readString(EXAMPLE), Map.of("KAFKA_BOOTSTRAP", "kafka:9092"));
        FilterDefinition routing = config.filtersFor(config.virtualClusters().get(0)).get(0);
        assertThat(routing.type()).isEqualTo("KeyRouting");
        assertThat(config.virtualClusters().get(0).gateways().get(0).portIdentifiesNode().bootstrapAddress().toString()).isEqualTo("127.0.0.1:9192");
        return RouteTable.of(ConfigLoader.bind(routing.config(), new KeyRouting().configType(), "filterDefinitions[0].config"));
    }

    @Test
    void exampleRoutesTheLiveScoresEndpointsToKeysOfScores() throws Exception {
        RouteTable routes = exampleRoutes();

        assertThat(routes.view("scores.live.football")).hasValueSatisfying(v -> {
            assertThat(v.topic()).isEqualTo("scores");
            assertThat(v.keys()).hasToString("live/football");
        });
        assertThat(routes.view("scores.uefa-f35")).hasValueSatisfying(v -> assertThat(v.keys()).hasToString("uefa-f35"));
        assertThat(routes.view("scores.results")).hasValueSatisfying(v -> assertThat(v.keys()).hasToString("results"));
        assertThat(routes.view("scores")).as("hidden").isEmpty();
        assertThat(routes.view("orders")).hasValueSatisfying(v -> assertThat(v.isVirtual()).isFalse());
        assertThat(routes.listed("scores")).extracting(View::name).containsExactly("scores.results");
    }

    @Test
    void anUnknownFieldIsAnErrorNamingIt() throws Exception {
        String yaml = Files.readString(EXAMPLE).replace("hideRealTopics: true", "hideRealTopic: true");
        ProxyConfig config = ProxyConfigLoader.parse(yaml, Map.of("KAFKA_BOOTSTRAP", "k:9092"));

        assertThatThrownBy(() -> ConfigLoader.bind(config.filterDefinitions().get(0).config(), KeyRouting.Config.class, "filterDefinitions[0].config"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("filterDefinitions[0].config.hideRealTopic");
    }
}
