package io.sluice.kms.azure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ServiceLoader;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.kms.KmsException;
import io.sluice.kms.KmsService;
import io.sluice.kms.UnknownKeyException;
import io.sluice.kms.WrappedKey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Validation names the bad field and contacts nothing; hostile key names and wrapped keys are refused before any call. */
class AzureKeyVaultKmsServiceTest {

    private static AzureKeyVaultConfig config(String url, String algorithm, AzureKeyVaultConfig.AzureCredentials credentials) {
        return new AzureKeyVaultConfig(url, algorithm, credentials, null, null, null, null);
    }

    @Test
    void badFieldsAreNamed(@TempDir Path dir) throws Exception {
        AzureKeyVaultKmsService service = new AzureKeyVaultKmsService();
        assertThatThrownBy(() -> service.validate(config(null, null, null))).hasMessageStartingWith("vaultUrl: required");
        assertThatThrownBy(() -> service.validate(config("http://my-vault.vault.azure.net", null, null)))
                .hasMessage("vaultUrl: expected https://host[:port], not 'http://my-vault.vault.azure.net'");
        assertThatThrownBy(() -> service.validate(config("https://v.vault.azure.net/keys", null, null))).hasMessageStartingWith("vaultUrl: must be scheme");
        assertThatThrownBy(() -> service.validate(config("https://v.vault.azure.net", "RSA1_5", null)))
                .hasMessage("algorithm: 'RSA1_5' is not RSA-OAEP-256 or A256KW");
        assertThatThrownBy(() -> service.validate(config("https://v.vault.azure.net", null, new AzureKeyVaultConfig.AzureCredentials("t", "c", null, null))))
                .hasMessage("credentials: exactly one of clientSecret or clientSecretFile");
        assertThatThrownBy(() -> service.validate(config("https://v.vault.azure.net", null, new AzureKeyVaultConfig.AzureCredentials(null, "c", "s", null))))
                .hasMessageStartingWith("credentials.tenantId: required");
        Path empty = Files.writeString(dir.resolve("secret"), "\n");
        assertThatThrownBy(() -> service.validate(config("https://v.vault.azure.net", null, new AzureKeyVaultConfig.AzureCredentials("t", "c", null, empty.toString()))))
                .hasMessage("credentials.clientSecretFile: '" + empty + "' is empty");
        assertThatThrownBy(() -> service.validate(new AzureKeyVaultConfig("https://v.vault.azure.net", null, null, dir.resolve("none.pem").toString(), null, null, null)))
                .hasMessageStartingWith("trustedCertificates: ");
        assertThatThrownBy(() -> service.validate(new AzureKeyVaultConfig("https://v.vault.azure.net", null, null, null, null, null, Duration.ZERO)))
                .hasMessage("requestTimeout: must be positive");
        // The secret never shows in the config's text.
        assertThat(new AzureKeyVaultConfig.AzureCredentials("t", "c", "hunter2", null).toString()).doesNotContain("hunter2");
        assertThat(ServiceLoader.load(KmsService.class).stream().map(p -> p.type().getSimpleName())).contains("AzureKeyVaultKmsService");
    }

    @Test
    void hostileNamesAndWrappedKeysAreRefusedWithoutACall() throws Exception {
        // Port 1 on loopback: any call would fail as unavailable, not as the refusals asserted here.
        try (var kms = new AzureKeyVaultKmsService(KeyVaultStandIn.CREDENTIAL)
                .create(config("https://127.0.0.1:1", null, null), new SimpleMeterRegistry())) {
            assertThat(failure(kms.resolveKek("../../secrets/x"))).isInstanceOf(UnknownKeyException.class);
            assertThat(failure(kms.unwrap(new WrappedKey("k/../../x", new byte[] { 1, 1, 1, 65, 1 })))).isInstanceOf(UnknownKeyException.class);
            assertThat(failure(kms.unwrap(new WrappedKey("k", new byte[] { 9, 1, 1, 65, 1 })))).hasMessageContaining("unknown format");
            assertThat(failure(kms.unwrap(new WrappedKey("k", new byte[] { 1, 1, (byte) 200, 65, 1 })))).hasMessageContaining("bad length");
            assertThat(failure(kms.unwrap(new WrappedKey("k", new byte[] { 1, 1, 3, '?', '/', '.', 1 })))).hasMessageContaining("not an Azure Key Vault key version");
            assertThat(failure(kms.unwrap(new WrappedKey("k", new byte[] { 1, 7, 1, 65, 1 })))).hasMessageContaining("unknown algorithm");
        }
    }

    private static Throwable failure(java.util.concurrent.CompletionStage<?> stage) {
        try {
            stage.toCompletableFuture().join();
        }
        catch (java.util.concurrent.CompletionException e) {
            assertThat(e.getCause()).isInstanceOf(KmsException.class);
            assertThat(((KmsException) e.getCause()).isRetriable()).isFalse();
            return e.getCause();
        }
        throw new AssertionError("expected a failure");
    }
}
