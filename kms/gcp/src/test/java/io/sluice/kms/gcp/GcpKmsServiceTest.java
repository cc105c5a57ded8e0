package io.sluice.kms.gcp;

import java.time.Duration;
import java.util.ServiceLoader;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.kms.KekRef;
import io.sluice.kms.KmsService;
import io.sluice.kms.UnknownKeyException;
import io.sluice.kms.WrappedKey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Validation names the bad field and contacts nothing; a KEK name that is not a CryptoKey name never reaches a URL. */
class GcpKmsServiceTest {

    @Test
    void badFieldsAreNamedAndHostileNamesRefusedWithoutACall() {
        GcpKmsService service = new GcpKmsService();
        assertThatThrownBy(() -> service.validate(new GcpKmsConfig("projects/p/keyRings/r", null, null, null)))
                .hasMessageStartingWith("keyRing: expected projects/PROJECT/locations/LOCATION/keyRings/RING");
        assertThatThrownBy(() -> service.validate(new GcpKmsConfig(null, "cloudkms.googleapis.com/v1", null, null))).hasMessageStartingWith("endpoint: ");
        assertThatThrownBy(() -> service.validate(new GcpKmsConfig(null, null, "/nonexistent/key.json", null)))
                .hasMessage("credentialsFile: '/nonexistent/key.json' does not exist");
        assertThatThrownBy(() -> service.validate(new GcpKmsConfig(null, null, null, Duration.ofSeconds(-1)))).hasMessage("requestTimeout: must be positive");
        service.validate(new GcpKmsConfig(GcpKmsConformanceTest.KEY_RING, "http://127.0.0.1:1", null, null));
        assertThat(ServiceLoader.load(KmsService.class).stream().map(p -> p.type().getSimpleName())).contains("GcpKmsService");

        try (var kms = new GcpKmsService(true).create(new GcpKmsConfig(GcpKmsConformanceTest.KEY_RING, "http://127.0.0.1:1", null, null),
                new SimpleMeterRegistry())) {
            for (String hostile : new String[] { "../../x", "k:encrypt", "projects/p/locations/l/keyRings/r/cryptoKeys/k/cryptoKeyVersions/1", "k?alt=x" }) {
                assertThatThrownBy(() -> kms.resolveKek(hostile).toCompletableFuture().join()).hasCauseInstanceOf(UnknownKeyException.class);
                assertThatThrownBy(() -> kms.generateDataKey(new KekRef(hostile, 1)).toCompletableFuture().join()).hasCauseInstanceOf(UnknownKeyException.class);
                assertThatThrownBy(() -> kms.unwrap(new WrappedKey(hostile, new byte[] { 1 })).toCompletableFuture().join())
                        .hasCauseInstanceOf(UnknownKeyException.class);
            }
        }
    }
}
