package io.sluice.format.registry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sluice.config.ConfigException;
import io.sluice.config.ConfigLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@code schemaRegistry} section as the bridge's strict YAML loader binds and validates it. */
class RegistryConfigTest {

    private static RegistryConfig parse(String yaml, Map<String, String> env) {
        return ConfigLoader.parse(yaml, env, RegistryConfig.class, c -> {
            List<String> problems = new ArrayList<>();
            c.validate(problems, "schemaRegistry");
            return problems;
        });
    }

    private static RegistryConfig parse(String yaml) {
        return parse(yaml, Map.of());
    }

    @Test
    void defaults() {
        RegistryConfig c = parse("url: http://registry:8081");
        assertThat(c.timeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.maxResponseBytes()).isEqualTo(1024 * 1024);
        assertThat(c.cache()).isEqualTo(new RegistryCacheConfig(10_000, Duration.ofSeconds(30), 10_000, Duration.ofSeconds(30)));
        assertThat(c.cache().maxBytes()).isEqualTo(64L * 1024 * 1024);
        assertThat(c.lookups()).isEqualTo(new RegistryLookupsConfig(20, 100));
        assertThat(c.auth()).isNull();
        assertThat(c.tls()).isNull();
    }

    @Test
    void everyField() {
        RegistryConfig c = parse("""
                url: https://registry:8443/apis/ccompat/v7/
                auth:
                  basic:
                    username: bridge
                    password: ${REG_PASSWORD}
                tls: {insecure: true}
                timeout: 2s
                maxResponseBytes: 256KiB
                cache: {maxSchemas: 50, failureTtl: 10s, maxFailures: 70, latestRefresh: 1m, maxBytes: 8MiB}
                lookups: {perSecond: 5, burst: 7}
                """, Map.of("REG_PASSWORD", "hunter2-secret"));
        assertThat(c.baseUrl()).isEqualTo("https://registry:8443/apis/ccompat/v7");
        assertThat(c.auth().basic().password().resolve()).isEqualTo("hunter2-secret");
        assertThat(c.timeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(c.maxResponseBytes()).isEqualTo(256 * 1024);
        assertThat(c.cache()).isEqualTo(new RegistryCacheConfig(50, Duration.ofSeconds(10), 70, Duration.ofMinutes(1), 8L << 20));
        assertThat(c.lookups()).isEqualTo(new RegistryLookupsConfig(5, 7));
        assertThat(c.toString()).doesNotContain("hunter2-secret").contains("auth=basic");
        assertThat(c.auth().toString()).doesNotContain("hunter2-secret");
        assertThat(parse("url: http://r\nmaxResponseBytes: 4096").maxResponseBytes()).isEqualTo(4096);
        assertThat(parse("url: http://r\nmaxResponseBytes: 2MiB").maxResponseBytes()).isEqualTo(2 * 1024 * 1024);
    }

    @Test
    void aBearerTokenNeverPrints() {
        RegistryConfig c = parse("url: http://r\nauth: {bearer: {token: tok-3cr3t}}");
        assertThat(c.auth().bearer().token().resolve()).isEqualTo("tok-3cr3t");
        assertThat(c + " " + c.auth() + " " + c.auth().bearer()).doesNotContain("tok-3cr3t");
    }

    @Test
    void problemsNameTheirFields() {
        assertThatThrownBy(() -> parse("timeout: 1s")).isInstanceOf(ConfigException.class).hasMessageContaining("schemaRegistry.url: is required");
        assertThatThrownBy(() -> parse("url: ftp://r")).hasMessageContaining("schemaRegistry.url: must start with http:// or https://");
        assertThatThrownBy(() -> parse("url: http://user:pw@r")).hasMessageContaining("schemaRegistry.url: must not carry credentials")
                .hasMessageNotContaining("pw@");
        assertThatThrownBy(() -> parse("url: http://r\ntimeout: 0s")).hasMessageContaining("schemaRegistry.timeout: must be positive");
        assertThatThrownBy(() -> parse("url: http://r\nmaxResponseBytes: 10")).hasMessageContaining("schemaRegistry.maxResponseBytes: must be between 1KiB and 64MiB");
        assertThatThrownBy(() -> parse("url: http://r\nmaxResponseBytes: lots")).hasMessageContaining("maxResponseBytes: 'lots' is not a size");
        assertThatThrownBy(() -> parse("url: http://r\ncache: {maxSchemas: 0, maxFailures: 0}"))
                .hasMessageContaining("schemaRegistry.cache.maxSchemas: must be at least 1")
                .hasMessageContaining("schemaRegistry.cache.maxFailures: must be at least 1");
        assertThatThrownBy(() -> parse("url: http://r\ncache: {failureTtl: 0s}"))
                .hasMessageContaining("schemaRegistry.cache.failureTtl: must be at least 1s");
        assertThatThrownBy(() -> parse("url: http://r\ncache: {maxBytes: 1MiB}"))
                .hasMessageContaining("schemaRegistry.cache.maxBytes: must be at least twice maxResponseBytes (2097152)");
        assertThatThrownBy(() -> parse("url: http://r\ncache: {maxBytes: much}")).hasMessageContaining("cache.maxBytes: 'much' is not a size");
        assertThatThrownBy(() -> parse("url: http://r\nlookups: {perSecond: 0, burst: 0}"))
                .hasMessageContaining("schemaRegistry.lookups.perSecond: must be above 0 and at most 10000")
                .hasMessageContaining("schemaRegistry.lookups.burst: must be between 1 and 10000");
        assertThatThrownBy(() -> parse("url: http://r\ncache: {maxSchema: 5}")).hasMessageContaining("cache.maxSchema: unknown field");
        assertThatThrownBy(() -> parse("url: http://r\nauth: {}")).hasMessageContaining("schemaRegistry.auth: set exactly one of basic or bearer");
        assertThatThrownBy(() -> parse("url: http://r\nauth: {basic: {username: u}}")).hasMessageContaining("schemaRegistry.auth.basic.password: is required");
        assertThatThrownBy(() -> parse("url: http://r\nauth: {basic: {username: 'a:b', password: x}}")).hasMessageContaining("schemaRegistry.auth.basic.username: must not contain ':'");
        assertThatThrownBy(() -> parse("url: http://r\nauth: {bearer: {token: ''}}")).hasMessageContaining("schemaRegistry.auth.bearer.token: must not be empty");
        assertThatThrownBy(() -> parse("url: http://r\ntls: {insecure: true}")).hasMessageContaining("schemaRegistry.tls: is set but url is http://");
        assertThatThrownBy(() -> parse("url: https://r\ntls: {verifyHostname: false}")).hasMessageContaining("schemaRegistry.tls.verifyHostname: false is not supported");
        assertThatThrownBy(() -> parse("url: https://r\ntls: {trust: {storeFile: /nonexistent.pem, storeType: PEM}}")).hasMessageContaining("schemaRegistry.tls.trust");
    }
}
