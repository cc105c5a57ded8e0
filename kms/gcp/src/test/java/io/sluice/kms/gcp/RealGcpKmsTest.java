package io.sluice.kms.gcp;

import java.time.Duration;

import javax.crypto.SecretKey;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.kms.DataKey;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.WrappedKey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Against Google Cloud KMS when {@code SLUICE_GCP_KMS_KEY} names a symmetric CryptoKey
 * ({@code projects/P/locations/L/keyRings/R/cryptoKeys/K}) the application default credentials may use with
 * roles/cloudkms.cryptoKeyEncrypterDecrypter (and cloudkms.cryptoKeys.get); skipped otherwise.
 */
@EnabledIfEnvironmentVariable(named = "SLUICE_GCP_KMS_KEY", matches = "projects/.+")
class RealGcpKmsTest {

    @Test
    void aDataKeyRoundTripsAndIsBoundToItsKekName() {
        String key = System.getenv("SLUICE_GCP_KMS_KEY");
        try (Kms kms = new GcpKmsService().create(new GcpKmsConfig(null, null, null, Duration.ofSeconds(30)), new SimpleMeterRegistry())) {
            KekRef kek = kms.resolveKek(key).toCompletableFuture().join();
            DataKey dataKey = kms.generateDataKey(kek).toCompletableFuture().join();
            SecretKey unwrapped = kms.unwrap(dataKey.wrapped()).toCompletableFuture().join();
            assertThat(unwrapped.getEncoded()).isEqualTo(dataKey.key().getEncoded());
            // The same ciphertext under another KEK name fails: the name is the additional authenticated data.
            String other = key.substring(0, key.lastIndexOf('/') + 1) + "sluice-other";
            assertThatThrownBy(() -> kms.unwrap(new WrappedKey(other, dataKey.wrapped().ciphertext())).toCompletableFuture().join());
        }
    }
}
