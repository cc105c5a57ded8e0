package io.sluice.filter.policy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.nimbusds.jose.jwk.JWKSet;

import io.sluice.auth.testing.TestIssuer;
import io.sluice.config.ConfigException;
import io.sluice.proxy.config.FilterDefinition;
import io.sluice.proxy.config.ProxyConfig;
import io.sluice.proxy.config.ProxyConfigLoader;
import io.sluice.proxy.filter.AuthenticatedPrincipal;
import io.sluice.proxy.server.ProxyServer;

import static io.sluice.filter.policy.PolicyHarness.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The config: the multi-tenant example validates as the proxy validates it; every bad value is refused naming its field. */
class PoliciesConfigTest {

    private static final Path EXAMPLE = Path.of("../config/examples/policies-multi-tenant.yaml");

    @Test
    void theMultiTenantExampleValidatesAndGivesEachPrincipalItsRule(@TempDir Path dir) throws Exception {
        Path jwks = Files.writeString(dir.resolve("jwks.json"), new JWKSet(TestIssuer.rsa().key().toPublicJWK()).toString());
        ProxyConfig proxy = ProxyConfigLoader.parse(Files.readString(EXAMPLE), Map.of("KAFKA_BOOTSTRAP", "127.0.0.1:1",
                "SLUICE_JWKS", jwks.toString(), "SLUICE_JWT_ISSUER", TestIssuer.ISSUER, "SLUICE_JWT_AUDIENCE", TestIssuer.AUDIENCE));
        ProxyServer.validate(proxy);

        // docs/governance.md's chain: Audit sees the final answers, JwtAuth sets the principal the others key on.
        assertThat(proxy.filtersFor(proxy.virtualClusters().get(0))).extracting(FilterDefinition::type)
                .containsExactly("Audit", "JwtAuth", "Quotas", "Policies");
        FilterDefinition prod = proxy.filtersFor(proxy.virtualClusters().get(0)).get(3);
        assertThat(prod.type()).isEqualTo("Policies");
        Rules rules = Rules.compile(io.sluice.config.ConfigLoader.bind(prod.config(), PoliciesConfig.class, "prod"));
        assertThat(rules.forPrincipal(principal("platform-ops"))).hasValueSatisfying(r -> {
            assertThat(r.name()).isEqualTo("platform");
            assertThat(r.produce()).isNull();
            assertThat(r.topics()).isNull();
        });
        assertThat(rules.forPrincipal(principal("team-payments"))).hasValueSatisfying(r -> {
            assertThat(r.name()).isEqualTo("tenants");
            assertThat(r.mode(PolicyId.PRODUCE_REQUIRE_KEY)).isEqualTo(PolicyMode.WARN);
            assertThat(r.mode(PolicyId.PRODUCE_REQUIRED_ACKS)).isEqualTo(PolicyMode.ENFORCE);
            assertThat(r.topics().judgedKeys()).containsExactlyInAnyOrder("retention.ms", "retention.bytes", "cleanup.policy", "min.insync.replicas");
        });
        assertThat(rules.forPrincipal(principal("someone"))).hasValueSatisfying(r -> assertThat(r.name()).isEqualTo("others"));
        FilterDefinition staging = proxy.filtersFor(proxy.virtualClusters().get(1)).get(3);
        assertThat(Rules.compile(io.sluice.config.ConfigLoader.bind(staging.config(), PoliciesConfig.class, "staging"))
                .forPrincipal(principal("team-search")).orElseThrow().mode(PolicyId.TOPIC_NAMES)).isEqualTo(PolicyMode.WARN);
    }

    private static Optional<AuthenticatedPrincipal> principal(String name) {
        return Optional.of(new AuthenticatedPrincipal(name, "OAUTHBEARER", Map.of()));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            rules: []                                                              | rules: at least one rule is required
            rules: [{produce: {requireKey: true}}]                                 | rules[0].name: is required
            rules: [{name: a, produce: {requireKey: true}}, {name: a, topics: {minInsyncReplicas: 2}}] | rules[1].name: 'a' names an earlier rule too
            rules: [{name: a, principals: [], produce: {requireKey: true}}]       | rules[0].principals: must name at least one pattern
            rules: [{name: a, principals: ['team-*', ''], produce: {requireKey: true}}] | rules[0].principals[1]: a pattern must not be empty
            rules: [{name: a, produce: {requiredAcks: 0}}]                         | rules[0].produce.requiredAcks: expected all (or -1) or 1, not '0'
            rules: [{name: a, produce: {compressionTypes: [lz4, brotli]}}]         | rules[0].produce.compressionTypes[1]: 'brotli' is not one of none, gzip, snappy, lz4, zstd
            rules: [{name: a, produce: {compressionTypes: []}}]                    | rules[0].produce.compressionTypes: must name at least one
            rules: [{name: a, produce: {maxRecordBytes: 0}}]                       | rules[0].produce.maxRecordBytes: must be at least 1, not 0
            rules: [{name: a, produce: {requiredHeaders: ['']}}]                   | rules[0].produce.requiredHeaders[0]: must not be empty
            rules: [{name: a, produce: {timestamps: {}}}]                          | rules[0].produce.timestamps: set maxPast, maxFuture or both
            rules: [{name: a, produce: {requireKey: false}}]                       | rules[0].produce: sets no policy
            rules: [{name: a, topics: {partitions: {min: 5, max: 2}}}]             | rules[0].topics.partitions.max: must be at least min (5), not 2
            rules: [{name: a, topics: {partitions: {}}}]                           | rules[0].topics.partitions: set min, max or both
            rules: [{name: a, topics: {minReplicationFactor: 0}}]                  | rules[0].topics.minReplicationFactor: must be at least 1, not 0
            rules: [{name: a, topics: {names: ['$(tenant).*']}}]                   | rules[0].topics.names[0]: '$(tenant).*' uses a placeholder other than $(principal)
            rules: [{name: a, topics: {names: []}}]                                | rules[0].topics.names: must name at least one pattern
            rules: [{name: a, topics: {configs: {retention.ms: {min: 5, allowed: [x]}}}}] | rules[0].topics.configs.retention.ms: either a range (min, max) or allowed values, not both
            rules: [{name: a, topics: {configs: {retention.ms: {max: 1, min: 5}}}}] | rules[0].topics.configs.retention.ms.max: must be at least min (5), not 1
            rules: [{name: a, topics: {configs: {cleanup.policy: {allowed: []}}}}] | rules[0].topics.configs.cleanup.policy: expected min, max or a non-empty allowed
            rules: [{name: a, modes: {produce.requireKeys: warn}, produce: {requireKey: true}}] | rules[0].modes.produce.requireKeys: not a policy (expected one of produce.requiredAcks,
            rules: [{name: a, modes: {topics.names: warn}, produce: {requireKey: true}}] | rules[0].modes.topics.names: the rule does not set topics.names
            """)
    void aBadValueIsRefusedNamingItsField(String yaml, String message) {
        assertThatThrownBy(() -> Rules.compile(config(yaml))).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(message);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            rules: [{name: a, produce: {requireKeys: true}}]              | filterDefinitions[policies].config.rules[0].produce.requireKeys: unknown field
            rules: [{name: a, mode: enforced, produce: {requireKey: true}}] | filterDefinitions[policies].config.rules[0].mode: invalid value 'enforced'
            rules: [{name: a, produce: {timestamps: {maxPast: soon}}}]    | filterDefinitions[policies].config.rules[0].produce.timestamps.maxPast: invalid value 'soon'
            rules: [{name: a, topics: {partitions: {max: 1.5}}}]          | filterDefinitions[policies].config.rules[0].topics.partitions.max:
            """)
    void aFieldTheBinderCannotReadIsNamedWithItsWholePath(String yaml, String message) {
        assertThatThrownBy(() -> config(yaml)).isInstanceOf(ConfigException.class).hasMessageContaining(message);
    }

    @Test
    void theProxyReportsAPolicyProblemUnderItsFilterDefinition(@TempDir Path dir) throws Exception {
        Path jwks = Files.writeString(dir.resolve("jwks.json"), new JWKSet(TestIssuer.rsa().key().toPublicJWK()).toString());
        String yaml = Files.readString(EXAMPLE).replace("minReplicationFactor: 3\n            minInsyncReplicas: 2",
                "minReplicationFactor: 3\n            minInsyncReplicas: 0");
        ProxyConfig proxy = ProxyConfigLoader.parse(yaml, Map.of("KAFKA_BOOTSTRAP", "127.0.0.1:1",
                "SLUICE_JWKS", jwks.toString(), "SLUICE_JWT_ISSUER", TestIssuer.ISSUER, "SLUICE_JWT_AUDIENCE", TestIssuer.AUDIENCE));
        assertThatThrownBy(() -> ProxyServer.validate(proxy))
                .hasMessageContaining("filterDefinitions[3].config: rules[1].topics.minInsyncReplicas: must be at least 1, not 0");
    }
}
