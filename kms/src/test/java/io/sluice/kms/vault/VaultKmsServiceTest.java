package io.sluice.kms.vault;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsService;
import io.sluice.kms.fakes.ConfigYaml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Configuration of the Vault KMS: binding from YAML, defaults, validation messages, secrets kept out of toString. */
class VaultKmsServiceTest {

    @TempDir
    Path dir;

    private final VaultKmsService service = new VaultKmsService(Map.of("VAULT_TOKEN_FOR_SLUICE", "hvs.from-env")::get);

    private void refuses(VaultKmsConfig config, String message) {
        assertThatThrownBy(() -> service.create(config, new SimpleMeterRegistry()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(message);
    }

    private static VaultKmsConfig config(VaultAuth auth) {
        return new VaultKmsConfig("http://127.0.0.1:8200", null, null, auth, null, null, null);
    }

    private static VaultAuth token(String token) {
        return new VaultAuth(token, null, null, null);
    }

    @Test
    void isFoundBySimpleAndQualifiedName() {
        List<String> simple = new ArrayList<>();
        List<String> qualified = new ArrayList<>();
        for (KmsService<?> found : ServiceLoader.load(KmsService.class)) {
            simple.add(found.getClass().getSimpleName());
            qualified.add(found.getClass().getName());
        }
        assertThat(simple).contains("VaultKmsService", "InProcessKmsService");
        assertThat(qualified).contains(VaultKmsService.class.getName());
        assertThat(service.configType()).isEqualTo(VaultKmsConfig.class);
    }

    @Test
    void bindsFromYamlWithDefaults() {
        VaultKmsConfig config = ConfigYaml.bind("""
                vaultUrl: https://vault.example:8200
                namespace: team-a
                auth:
                  appRole:
                    roleId: 1d2c-role
                    secretIdFile: /run/secrets/vault-secret-id
                tls:
                  trustStoreFile: /etc/sluice/vault-ca.pem
                requestTimeout: 3s
                """, VaultKmsConfig.class);
        assertThat(config.mount()).isEqualTo("transit");
        assertThat(config.namespace()).isEqualTo("team-a");
        assertThat(config.auth().appRole().mount()).isEqualTo("approle");
        assertThat(config.auth().appRole().secretIdFile()).isEqualTo("/run/secrets/vault-secret-id");
        assertThat(config.tls().insecure()).isFalse();
        assertThat(config.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.requestTimeout()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void unknownFieldsAreRefusedByTheBinder() {
        assertThatThrownBy(() -> ConfigYaml.bind("vaultUrl: http://x\nvault_url: http://y\n", VaultKmsConfig.class))
                .hasMessageContaining("vault_url");
    }

    @Test
    void secretsStayOutOfToString() {
        VaultKmsConfig config = new VaultKmsConfig("https://v:8200", null, null, token("hvs.SECRET-TOKEN"),
                new VaultTls("/ca.p12", "STORE-PASSWORD", null, null), null, null);
        AppRole appRole = new AppRole("role", "SECRET-ID", null, null);
        assertThat(config.toString()).doesNotContain("SECRET-TOKEN").doesNotContain("STORE-PASSWORD").contains("******");
        assertThat(appRole.toString()).doesNotContain("SECRET-ID").contains("role");
        assertThat(new VaultAuth(null, null, null, appRole).toString()).doesNotContain("SECRET-ID");
    }

    @Test
    void createsWithoutContactingVault() {
        // Nothing listens on port 9: creating must not fail, calls would fail with KmsUnavailableException.
        try (Kms kms = service.create(new VaultKmsConfig("http://127.0.0.1:9", null, null, token("t"), null, null, null),
                new SimpleMeterRegistry())) {
            assertThat(kms).isNotNull();
        }
    }

    @Test
    void refusesBadUrls() {
        refuses(new VaultKmsConfig(null, null, null, token("t"), null, null, null), "vaultUrl: required");
        refuses(new VaultKmsConfig("vault:8200", null, null, token("t"), null, null, null), "vaultUrl:");
        refuses(new VaultKmsConfig("ftp://vault:8200", null, null, token("t"), null, null, null), "vaultUrl:");
        refuses(new VaultKmsConfig("http://vault:8200?x=1", null, null, token("t"), null, null, null), "vaultUrl:");
    }

    @Test
    void refusesBadPathsAndTimeouts() {
        refuses(new VaultKmsConfig("http://v:8200", "/", null, token("t"), null, null, null), "mount: must not be empty");
        refuses(new VaultKmsConfig("http://v:8200", "a/../sys", null, token("t"), null, null, null), "mount:");
        refuses(new VaultKmsConfig("http://v:8200", null, "a b", token("t"), null, null, null), "namespace:");
        refuses(new VaultKmsConfig("http://v:8200", null, null, token("t"), null, Duration.ZERO, null), "connectTimeout:");
        refuses(new VaultKmsConfig("http://v:8200", null, null, token("t"), null, null, Duration.ofSeconds(-1)), "requestTimeout:");
    }

    @Test
    void refusesMissingOrAmbiguousAuth() throws Exception {
        refuses(config(null), "auth: one of token, tokenFile, tokenEnv or appRole is required");
        refuses(config(new VaultAuth(null, null, null, null)), "auth: exactly one");
        refuses(config(new VaultAuth("t", "/f", null, null)), "auth: exactly one");
        refuses(config(token(" ")), "auth.token: must not be empty");
        refuses(config(new VaultAuth(null, dir.resolve("missing").toString(), null, null)), "auth.tokenFile: '");
        Path empty = Files.writeString(dir.resolve("empty"), "\n");
        refuses(config(new VaultAuth(null, empty.toString(), null, null)), "auth.tokenFile:");
        refuses(config(new VaultAuth(null, null, "NOT_SET_ANYWHERE", null)), "auth.tokenEnv: environment variable NOT_SET_ANYWHERE is not set");
        refuses(config(new VaultAuth(null, null, null, new AppRole(null, "s", null, null))), "auth.appRole.roleId: required");
        refuses(config(new VaultAuth(null, null, null, new AppRole("r", null, null, null))), "auth.appRole: exactly one of secretId or secretIdFile");
        refuses(config(new VaultAuth(null, null, null, new AppRole("r", "s", "/f", null))), "auth.appRole: exactly one of secretId or secretIdFile");
        refuses(config(new VaultAuth(null, null, null, new AppRole("r", null, dir.resolve("nope").toString(), null))), "auth.appRole.secretIdFile:");
    }

    @Test
    void acceptsEachKindOfAuth() throws Exception {
        Path tokenFile = Files.writeString(dir.resolve("token"), "hvs.file\n");
        Path secretIdFile = Files.writeString(dir.resolve("secret-id"), "sid\n");
        for (VaultAuth auth : new VaultAuth[]{
                token("hvs.inline"),
                new VaultAuth(null, tokenFile.toString(), null, null),
                new VaultAuth(null, null, "VAULT_TOKEN_FOR_SLUICE", null),
                new VaultAuth(null, null, null, new AppRole("r", "s", null, null)),
                new VaultAuth(null, null, null, new AppRole("r", null, secretIdFile.toString(), "approle-kms")) }) {
            try (Kms kms = service.create(config(auth), new SimpleMeterRegistry())) {
                assertThat(kms).isNotNull();
            }
        }
    }

    @Test
    void refusesInconsistentTls() throws Exception {
        VaultAuth auth = token("t");
        refuses(new VaultKmsConfig("http://v:8200", null, null, auth, new VaultTls(null, null, null, true), null, null), "tls: set, but vaultUrl is not https");
        refuses(new VaultKmsConfig("https://v:8200", null, null, auth, new VaultTls("/ca.pem", null, null, true), null, null), "tls: insecure and trustStoreFile");
        refuses(new VaultKmsConfig("https://v:8200", null, null, auth, new VaultTls(null, null, null, false), null, null), "tls.trustStoreFile: required");
        refuses(new VaultKmsConfig("https://v:8200", null, null, auth, new VaultTls(dir.resolve("no.pem").toString(), null, null, null), null, null),
                "tls.trustStoreFile: '");
        Path notPem = Files.writeString(dir.resolve("not.pem"), "hello");
        refuses(new VaultKmsConfig("https://v:8200", null, null, auth, new VaultTls(notPem.toString(), null, null, null), null, null), "tls");
        refuses(new VaultKmsConfig("https://v:8200", null, null, auth, new VaultTls(notPem.toString(), null, "DER", null), null, null),
                "tls.trustStoreType: must be PEM, PKCS12 or JKS");
    }
}
