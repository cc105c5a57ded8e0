package io.sluice.filter.encryption;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.proxy.config.ProxyConfigLoader;
import io.sluice.proxy.config.ProxyConfig;
import io.sluice.proxy.server.ProxyServer;

import static org.assertj.core.api.Assertions.assertThat;

/** The shipped example configurations load, and their filters and KMS clients initialise. */
class EncryptionExampleConfigsTest {

    @ParameterizedTest
    @ValueSource(strings = { "encryption.yaml", "encryption-inprocess.yaml", "encryption-aws.yaml", "encryption-azure.yaml", "encryption-gcp.yaml" })
    void exampleStartsAProxy(String file) throws Exception {
        String yaml = Files.readString(Path.of("../config/examples", file));
        int port = io.sluice.testkit.FreePorts.block(4);
        ProxyConfig config = ProxyConfigLoader.parse(yaml.replace("port: 9190", "port: 0"), Map.of(
                "KAFKA_BOOTSTRAP", "127.0.0.1:1",
                "SLUICE_BOOTSTRAP", "127.0.0.1:" + port,
                // The Vault client does not contact Vault until a key is needed.
                "VAULT_ADDR", "http://127.0.0.1:1",
                "VAULT_TOKEN", "s.example",
                // Nor does the AWS KMS client contact AWS, or look for credentials, before a key is needed.
                "AWS_REGION", "eu-west-1",
                // Nor does the Azure one contact the vault, or ask for a token, before a key is needed.
                "SLUICE_AZURE_KEY_VAULT_URL", "https://sluice-example.vault.azure.net",
                // Nor the Google one (its client and credentials are made on the first call).
                "SLUICE_GCP_KEY_RING", "projects/sluice-example/locations/europe-west1/keyRings/sluice"));
        assertThat(config.filterDefinitions()).extracting(d -> d.type()).containsExactly("RecordEncryption");
        try (ProxyServer server = ProxyServer.start(config)) {
            assertThat(server.bootstrapAddress("encrypted", "default").getPort()).isEqualTo(port);
        }
    }

    /** An AES-GCM provider that does not exist is refused by name, before anything starts. */
    @org.junit.jupiter.api.Test
    void anUnknownAesGcmProviderIsRefusedNamingTheField() throws Exception {
        String yaml = Files.readString(Path.of("../config/examples", "encryption-inprocess.yaml"))
                .replace("kms: InProcessKmsService", "aesGcmProvider: NOPE\n      kms: InProcessKmsService");
        ProxyConfig config = ProxyConfigLoader.parse(yaml, Map.of("KAFKA_BOOTSTRAP", "127.0.0.1:1",
                "SLUICE_BOOTSTRAP", "127.0.0.1:" + io.sluice.testkit.FreePorts.block(4)));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ProxyServer.validate(config))
                .hasMessageContaining("filterDefinitions[0].config.aesGcmProvider: invalid value 'NOPE' (expected one of AUTO, JCE, ACCP)");
    }

    /** A bad data key cache bound is refused naming the field under its filter, before anything starts. */
    @ParameterizedTest
    @ValueSource(strings = { "maxEntries: 0", "maxIdle: 0s", "failureTtl: -1s", "maxFailures: 0" })
    void aBadDataKeyCacheBoundIsRefusedNamingTheField(String setting) throws Exception {
        String yaml = Files.readString(Path.of("../config/examples", "encryption-inprocess.yaml"))
                .replace("kms: InProcessKmsService", "keyCache: { dataKeys: { " + setting + " } }\n      kms: InProcessKmsService");
        ProxyConfig config = ProxyConfigLoader.parse(yaml, Map.of("KAFKA_BOOTSTRAP", "127.0.0.1:1",
                "SLUICE_BOOTSTRAP", "127.0.0.1:" + io.sluice.testkit.FreePorts.block(4)));
        String field = setting.substring(0, setting.indexOf(':'));
        // A value the cache refuses, or one the YAML binding refuses already (a negative duration): either way, named.
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ProxyServer.validate(config))
                .hasMessageContaining("filterDefinitions[0].config").hasMessageContaining("keyCache.dataKeys." + field + ": ");
    }
}
