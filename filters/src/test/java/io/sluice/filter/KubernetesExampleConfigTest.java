package io.sluice.filter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.filter.encryption.RecordEncryption;
import io.sluice.kms.KmsService;
import io.sluice.config.ConfigLoader;
import io.sluice.proxy.config.ProxyConfigLoader;
import io.sluice.proxy.config.FilterDefinition;
import io.sluice.proxy.config.ProxyConfig;
import io.sluice.proxy.filter.FilterFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The proxy config of the Kubernetes example overlay (proxy/app/kubernetes/overlays/example, docs/kubernetes.md)
 * binds as the proxy binds it at start-up: each filter's config to its factory's type and the KMS config to the
 * Vault service's, so a misspelt or misplaced field in the shipped example fails here rather than in a cluster.
 * (Initialising the filters would read the Vault token file and contact the JWKS URL, which exist only there.)
 */
class KubernetesExampleConfigTest {

    static final Path EXAMPLE = Path.of("..", "proxy", "app", "kubernetes", "overlays", "example", "proxy.yaml");

    @TempDir
    Path secrets;

    @Test
    void theExampleOverlaysFiltersBindToTheirFactoriesConfigs() throws IOException {
        // Loading checks that the TLS files exist; in the pod they are mounted from Secrets, here they are empty stand-ins.
        String yaml = Files.readString(EXAMPLE);
        for (String file : List.of("gateway-tls/tls.crt", "gateway-tls/tls.key", "kafka-ca/ca.crt")) {
            Files.createDirectories(secrets.resolve(file).getParent());
            Files.writeString(secrets.resolve(file), "");
            yaml = yaml.replace("/var/run/secrets/" + file, secrets.resolve(file).toString());
        }
        ProxyConfig config = ProxyConfigLoader.parse(yaml, Map.of("KAFKA_BOOTSTRAP", "kafka:9092",
                "SLUICE_ADVERTISED_HOST", "kafka.example.com", "SLUICE_JWKS", "https://issuer.example/.well-known/jwks.json",
                "SLUICE_JWT_ISSUER", "https://issuer.example", "SLUICE_JWT_AUDIENCE", "sluice", "VAULT_ADDR", "https://vault.example.com:8200"));

        List<String> bound = new ArrayList<>();
        for (FilterDefinition definition : config.filterDefinitions()) {
            FilterFactory<?, ?> factory = plugin(FilterFactory.class, definition.type());
            Object filterConfig = ConfigLoader.bind(definition.config(), factory.configType(), "filterDefinitions[" + definition.name() + "].config");
            if (filterConfig instanceof RecordEncryption.Config encryption) {
                KmsService<?> kms = plugin(KmsService.class, encryption.kms());
                assertThat(ConfigLoader.bind(encryption.kmsConfig(), kms.configType(), "kmsConfig").toString()).contains("/var/run/secrets/sluice/vault-token");
            }
            bound.add(definition.type());
        }
        assertThat(bound).containsExactly("JwtAuth", "RecordEncryption");
    }

    private static <P> P plugin(Class<P> type, String name) {
        for (P plugin : ServiceLoader.load(type)) {
            if (plugin.getClass().getSimpleName().equals(name)) {
                return plugin;
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " named " + name);
    }
}
