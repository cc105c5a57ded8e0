package io.sluice.filter.jwt;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sluice.auth.JwtConfig;
import io.sluice.proxy.config.ConfigException;
import io.sluice.proxy.config.ConfigLoader;
import io.sluice.proxy.config.FilterDefinition;
import io.sluice.proxy.config.ProxyConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** config/examples/jwt.yaml must keep loading and binding to the filter's config. */
class JwtExampleConfigTest {

    private static final Path EXAMPLE = Path.of("../config/examples/jwt.yaml");

    @Test
    void exampleBindsTheJwtAuthFilterToTheGivenKeysIssuerAndAudience() throws Exception {
        ProxyConfig config = ConfigLoader.parse(Files.readString(EXAMPLE), Map.of(
                "KAFKA_BOOTSTRAP", "kafka:9092",
                "SLUICE_JWKS", "https://idp.example.com/jwks.json",
                "SLUICE_JWT_ISSUER", "https://idp.example.com/",
                "SLUICE_JWT_AUDIENCE", "kafka"));

        FilterDefinition jwt = config.filtersFor(config.virtualClusters().get(0)).get(0);
        assertThat(jwt.type()).isEqualTo("JwtAuth");
        JwtConfig bound = ConfigLoader.bind(jwt.config(), new JwtAuth().configType(), "filterDefinitions[0].config").validated();
        assertThat(bound.jwks()).isEqualTo("https://idp.example.com/jwks.json");
        assertThat(bound.jwksIsUrl()).isTrue();
        assertThat(bound.issuer()).isEqualTo("https://idp.example.com/");
        assertThat(bound.audience()).isEqualTo("kafka");
        assertThat(bound.clockSkew()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.virtualClusters().get(0).gateways().get(0).portIdentifiesNode().bootstrapAddress().toString()).isEqualTo("127.0.0.1:9192");
    }

    @Test
    void exampleNeedsTheKeysIssuerAndAudience() {
        assertThatThrownBy(() -> ConfigLoader.parse(Files.readString(EXAMPLE), Map.of("KAFKA_BOOTSTRAP", "kafka:9092")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("SLUICE_JWKS is not set")
                .hasMessageContaining("SLUICE_JWT_ISSUER is not set")
                .hasMessageContaining("SLUICE_JWT_AUDIENCE is not set");
    }

    @Test
    void unknownConfigFieldIsAnErrorNamingIt() throws Exception {
        String yaml = Files.readString(EXAMPLE).replace("permissionsClaim: sluice", "permissionClaim: sluice");
        ProxyConfig config = ConfigLoader.parse(yaml, Map.of("KAFKA_BOOTSTRAP", "k:9092", "SLUICE_JWKS", "/etc/jwks.json",
                "SLUICE_JWT_ISSUER", "i", "SLUICE_JWT_AUDIENCE", "a"));

        assertThatThrownBy(() -> ConfigLoader.bind(config.filterDefinitions().get(0).config(), JwtConfig.class, "filterDefinitions[0].config"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("filterDefinitions[0].config.permissionClaim");
    }
}
