package io.sluice.kms.azure;

import java.time.Duration;

import javax.crypto.SecretKey;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.kms.DataKey;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.UnknownKeyException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Against a real Azure Key Vault when {@code SLUICE_AZURE_KEY_VAULT_URL} and {@code SLUICE_AZURE_KEY_NAME} (an RSA
 * key the identity may wrapKey/unwrapKey/get, e.g. with "Key Vault Crypto User") are set; skipped otherwise. Credentials
 * come from {@code DefaultAzureCredential}: {@code AZURE_TENANT_ID}, {@code AZURE_CLIENT_ID},
 * {@code AZURE_CLIENT_SECRET}, or a managed or workload identity.
 */
@EnabledIfEnvironmentVariable(named = "SLUICE_AZURE_KEY_VAULT_URL", matches = "https://.+")
@EnabledIfEnvironmentVariable(named = "SLUICE_AZURE_KEY_NAME", matches = ".+")
class RealAzureKeyVaultTest {

    @Test
    void aDataKeyRoundTripsAndAnAbsentKeyIsUnknown() {
        AzureKeyVaultConfig config = new AzureKeyVaultConfig(System.getenv("SLUICE_AZURE_KEY_VAULT_URL"), null, null, null, null, null,
                Duration.ofSeconds(30));
        String name = System.getenv("SLUICE_AZURE_KEY_NAME");
        try (Kms kms = new AzureKeyVaultKmsService().create(config, new SimpleMeterRegistry())) {
            KekRef kek = kms.resolveKek(name).toCompletableFuture().join();
            DataKey key = kms.generateDataKey(kek).toCompletableFuture().join();
            SecretKey unwrapped = kms.unwrap(key.wrapped()).toCompletableFuture().join();
            assertThat(unwrapped.getEncoded()).isEqualTo(key.key().getEncoded());
            assertThatThrownBy(() -> kms.resolveKek("sluice-absent-" + System.nanoTime()).toCompletableFuture().join())
                    .hasCauseInstanceOf(UnknownKeyException.class);
        }
    }
}
