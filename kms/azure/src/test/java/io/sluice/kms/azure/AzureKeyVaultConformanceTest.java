package io.sluice.kms.azure;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;


import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.kms.Kms;
import io.sluice.kms.WrappedKey;
import io.sluice.kms.conformance.KmsConformance;
import io.sluice.kms.conformance.KmsFixture;

/**
 * The conformance suite against the Azure Key Vault provider and {@link KeyVaultStandIn} (Key Vault's REST API over
 * TLS, the SDK's 401 challenge first). Rotation is a new key version; disabling sets the key's {@code enabled: false}.
 */
class AzureKeyVaultConformanceTest extends KmsConformance {

    static AzureKeyVaultConfig config(KeyVaultStandIn standIn, int port, Duration requestTimeout) {
        return new AzureKeyVaultConfig("https://127.0.0.1:" + port, null, null, standIn.caPem().toString(), true, Duration.ofSeconds(2), requestTimeout);
    }

    @Override
    protected KmsFixture createFixture() throws Exception {
        Path dir = Files.createTempDirectory("keyvault-stand-in");
        KeyVaultStandIn standIn = new KeyVaultStandIn(dir);
        // The SDK's first call loads azure-core, Reactor and Jackson: seconds on a busy machine, more than the suite's
        // 2 s request timeout. One call beforehand, outside the tests, so that they time the KMS, not class loading.
        standIn.createKey("warm-up");
        try (Kms kms = new AzureKeyVaultKmsService(KeyVaultStandIn.CREDENTIAL).create(config(standIn, standIn.port(), Duration.ofSeconds(60)),
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry())) {
            kms.unwrap(kms.generateDataKey(kms.resolveKek("warm-up").toCompletableFuture().join()).toCompletableFuture().join().wrapped())
                    .toCompletableFuture().join();
        }
        return new KmsFixture() {
            @Override
            public String provider() {
                return "azure";
            }

            @Override
            public Optional<InetSocketAddress> server() {
                return Optional.of(new InetSocketAddress("127.0.0.1", standIn.port()));
            }

            @Override
            public Kms connect(InetSocketAddress address, Duration requestTimeout, MeterRegistry registry) {
                return new AzureKeyVaultKmsService(KeyVaultStandIn.CREDENTIAL).create(config(standIn, address.getPort(), requestTimeout), registry);
            }

            @Override
            public String createKek() throws Exception {
                String name = "sluice-conformance-" + UUID.randomUUID();
                standIn.createKey(name);
                return name;
            }

            @Override
            public String absentKek() {
                return "sluice-absent-" + UUID.randomUUID();
            }

            @Override
            public void disable(String kek) {
                standIn.setEnabled(kek, false);
            }

            @Override
            public void enable(String kek) {
                standIn.setEnabled(kek, true);
            }

            @Override
            public void rotate(String kek) throws Exception {
                standIn.rotate(kek);
            }

            @Override
            public String wrappingKey(WrappedKey wrapped) {
                return AzureWrappedKey.parse(wrapped.ciphertext()).version();
            }

            @Override
            public void close() throws Exception {
                standIn.close();
                try (var files = Files.list(dir)) {
                    for (Path f : files.toList()) {
                        Files.delete(f);
                    }
                }
                Files.delete(dir);
            }
        };
    }
}
