package io.sluice.filter.jwt;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sluice.auth.JwtConfig;
import io.sluice.config.ConfigException;
import io.sluice.config.ConfigLoader;
import io.sluice.proxy.config.ProxyConfigLoader;
import io.sluice.proxy.config.FilterDefinition;
import io.sluice.proxy.config.ProxyConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** config/examples/jwt.yaml must keep loading and binding to the filter's config. */
class JwtExampleConfigTest {

    private static final Path EXAMPLE = Path.of("../config/examples/jwt.yaml");

    @Test
    void exampleBindsTheJwtAuthFilterToTheGivenKeysIssuerAndAudience() throws Exception {
        ProxyConfig proxy = ProxyConfigLoader.parse(Files.readString(EXAMPLE), Map.of(
                "KAFKA_BOOTSTRAP", "kafka:9092",
                "SLUICE_JWKS", "https://idp.example.com/jwks.json",
                "SLUICE_JWT_ISSUER", "https://idp.example.com/",
                "SLUICE_JWT_AUDIENCE", "kafka"));

        FilterDefinition jwt = proxy.filtersFor(proxy.virtualClusters().get(0)).get(0);
        assertThat(jwt.type()).isEqualTo("JwtAuth");
        JwtAuthConfig config = ConfigLoader.bind(jwt.config(), new JwtAuth().configType(), "filterDefinitions[0].config");
        JwtConfig bound = config.jwt().validated();
        assertThat(config.records()).isEqualTo(io.sluice.filter.records.RecordLimits.DEFAULTS);
        assertThat(bound.jwks()).isEqualTo("https://idp.example.com/jwks.json");
        assertThat(bound.jwksIsUrl()).isTrue();
        assertThat(bound.issuer()).isEqualTo("https://idp.example.com/");
        assertThat(bound.audience()).isEqualTo("kafka");
        assertThat(bound.clockSkew()).isEqualTo(Duration.ofSeconds(30));
        assertThat(proxy.virtualClusters().get(0).gateways().get(0).portIdentifiesNode().bootstrapAddress().toString()).isEqualTo("127.0.0.1:9192");
    }

    @Test
    void exampleNeedsTheKeysIssuerAndAudience() {
        assertThatThrownBy(() -> ProxyConfigLoader.parse(Files.readString(EXAMPLE), Map.of("KAFKA_BOOTSTRAP", "kafka:9092")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("SLUICE_JWKS is not set")
                .hasMessageContaining("SLUICE_JWT_ISSUER is not set")
                .hasMessageContaining("SLUICE_JWT_AUDIENCE is not set");
    }

    @Test
    void unknownConfigFieldIsAnErrorNamingIt() throws Exception {
        String yaml = Files.readString(EXAMPLE).replace("permissionsClaim: sluice", "permissionClaim: sluice");
        ProxyConfig config = ProxyConfigLoader.parse(yaml, Map.of("KAFKA_BOOTSTRAP", "k:9092", "SLUICE_JWKS", "/etc/jwks.json",
                "SLUICE_JWT_ISSUER", "i", "SLUICE_JWT_AUDIENCE", "a"));

        assertThatThrownBy(() -> ConfigLoader.bind(config.filterDefinitions().get(0).config(), new JwtAuth().configType(), "filterDefinitions[0].config"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("filterDefinitions[0].config.permissionClaim");
    }

    @Test
    void recordsAndMaxQueuedValidationsBindBesideTheJwtFieldsAndUnknownFieldsInThemAreNamed() throws Exception {
        JwtAuthConfig config = bind("""
                jwks: /etc/jwks.json
                issuer: i
                audience: a
                maxQueuedValidations: 7
                records:
                  maxRecordBytes: 1024
                """);
        assertThat(config.jwt().maxQueuedValidations()).isEqualTo(7);
        assertThat(config.jwt().issuer()).isEqualTo("i");
        assertThat(config.records()).isEqualTo(new io.sluice.filter.records.RecordLimits(1024,
                io.sluice.filter.records.RecordLimits.DEFAULT_MAX_BATCH_BYTES, io.sluice.filter.records.RecordLimits.DEFAULT_MAX_REQUEST_BYTES));
        assertThat(bind("jwks: /etc/jwks.json\nissuer: i\naudience: a\n").jwt().maxQueuedValidations())
                .isEqualTo(JwtConfig.DEFAULT_MAX_QUEUED_VALIDATIONS);

        assertThatThrownBy(() -> bind("jwks: /etc/jwks.json\nissuer: i\naudience: a\nrecords: {maxRecordByte: 1}\nclockSkw: 1s\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("filterDefinitions[0].config.records.maxRecordByte: unknown field")
                .hasMessageContaining("filterDefinitions[0].config.clockSkw: unknown field");
        assertThatThrownBy(() -> bind("jwks: /etc/jwks.json\nissuer: i\naudience: a\nrecords: {maxRecordBytes: 0}\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("filterDefinitions[0].config.records")
                .hasMessageContaining("maxRecordBytes: must be at least 1");
        assertThat(bind("jwks: /etc/jwks.json\nissuer: i\naudience: a\nmaxQueuedValidations: 0\n").jwt().problems())
                .contains("maxQueuedValidations: must be at least 1, not 0");
    }

    private static JwtAuthConfig bind(String yaml) throws Exception {
        return ConfigLoader.bind(ConfigLoader.tree(yaml, Map.of()), new JwtAuth().configType(), "filterDefinitions[0].config");
    }
}
