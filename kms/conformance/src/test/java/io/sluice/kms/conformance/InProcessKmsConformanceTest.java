package io.sluice.kms.conformance;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;

import javax.crypto.SecretKey;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.kms.DataKey;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.WrappedKey;
import io.sluice.kms.inprocess.InProcessKms;
import io.sluice.kms.metrics.MeteredKms;

/**
 * The conformance suite against the in-process KMS. It has no network, so the unreachable and slow KMS tests are
 * skipped (saying so); its KEKs are disabled with {@link InProcessKms#disable}.
 */
class InProcessKmsConformanceTest extends KmsConformance {

    @Override
    protected KmsFixture createFixture() {
        return new KmsFixture() {
            private final InProcessKms keks = InProcessKms.generate(List.of());

            @Override
            public String provider() {
                return "inprocess";
            }

            @Override
            public Optional<InetSocketAddress> server() {
                return Optional.empty();
            }

            @Override
            public Kms connect(InetSocketAddress address, Duration requestTimeout, MeterRegistry registry) {
                // Metered as InProcessKmsService meters it; the suite's close must not wipe the shared KEKs.
                return new MeteredKms(new Kms() {
                    @Override
                    public CompletionStage<KekRef> resolveKek(String name) {
                        return keks.resolveKek(name);
                    }

                    @Override
                    public CompletionStage<DataKey> generateDataKey(KekRef kek) {
                        return keks.generateDataKey(kek);
                    }

                    @Override
                    public CompletionStage<SecretKey> unwrap(WrappedKey wrapped) {
                        return keks.unwrap(wrapped);
                    }
                }, "inprocess", registry);
            }

            @Override
            public String createKek() {
                String name = "kek-" + UUID.randomUUID();
                keks.createKey(name);
                return name;
            }

            @Override
            public String absentKek() {
                return "kek-absent-" + UUID.randomUUID();
            }

            @Override
            public void disable(String kek) {
                keks.disable(kek);
            }

            @Override
            public void enable(String kek) {
                keks.enable(kek);
            }

            @Override
            public void rotate(String kek) {
                keks.rotate(kek);
            }

            @Override
            public String wrappingKey(WrappedKey wrapped) {
                return wrapped.ciphertextText().split(":")[1];
            }

            @Override
            public void close() {
                keks.close();
            }
        };
    }
}
