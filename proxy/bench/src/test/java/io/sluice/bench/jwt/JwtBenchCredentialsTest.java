package io.sluice.bench.jwt;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.sluice.auth.TokenAuthenticator;
import io.sluice.auth.Grant;
import io.sluice.auth.JwtConfig;
import io.sluice.bench.targets.BenchTargets;
import io.sluice.bench.targets.TargetCredentials;

class JwtBenchCredentialsTest {

    @Test
    void theJwtTargetGetsTokensItsOwnProxyConfigurationAccepts() throws Exception {
        TargetCredentials.Issued issued = TargetCredentials.forTarget(BenchTargets.resolve("jwt"));
        String secret = issued.proxyEnvironment().get(JwtBenchCredentials.SECRET_VARIABLE);

        try (TokenAuthenticator authenticator = TokenAuthenticator.create(
                new JwtConfig(null, null, secret, null, JwtBenchCredentials.ISSUER, JwtBenchCredentials.ISSUER, null, null, null, null, null, null))) {
            Grant client = authenticator.authenticate(token(issued.clientConfig().get("sasl.jaas.config")));
            assertThat(client.permissions().isAdmin()).isFalse();
            assertThat(client.permissions().canWrite("bench-jwt-1-42")).isTrue();
            assertThat(client.permissions().canRead("bench-jwt-1-42")).isTrue();
            assertThat(client.permissions().canRead("orders")).isFalse();
        }
    }

    @Test
    void targetsWithoutJwtAuthNeedNoCredentials() {
        assertThat(TargetCredentials.forTarget(BenchTargets.resolve("passthrough"))).isSameAs(TargetCredentials.Issued.NONE);
        assertThat(TargetCredentials.forTarget(BenchTargets.resolve("direct"))).isSameAs(TargetCredentials.Issued.NONE);
    }

    @Test
    void eachRunHasItsOwnSecret() {
        JwtBenchCredentials credentials = new JwtBenchCredentials();
        assertThat(credentials.issue().proxyEnvironment()).isNotEqualTo(credentials.issue().proxyEnvironment());
    }

    private static String token(Object jaasConfig) {
        return ((String) jaasConfig).replaceAll(".*token=\"([^\"]+)\".*", "$1");
    }
}
