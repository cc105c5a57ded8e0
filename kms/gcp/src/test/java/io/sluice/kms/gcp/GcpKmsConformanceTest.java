package io.sluice.kms.gcp;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.kms.Kms;
import io.sluice.kms.WrappedKey;
import io.sluice.kms.conformance.KmsConformance;
import io.sluice.kms.conformance.KmsFixture;

/**
 * The conformance suite against the Google Cloud KMS provider and {@link CloudKmsStandIn} (Cloud KMS's REST API).
 * KEKs are CryptoKey ids in a configured key ring; rotation is a new primary version; disabling disables the versions.
 */
class GcpKmsConformanceTest extends KmsConformance {

    static final String KEY_RING = "projects/sluice-test/locations/europe-west1/keyRings/conformance";

    @Override
    protected KmsFixture createFixture() throws Exception {
        CloudKmsStandIn standIn = new CloudKmsStandIn();
        // The client's first call loads gax, protobuf and their JSON codecs: seconds on a busy machine, more than the
        // suite's 2 s request timeout. One call beforehand, outside the tests, so that they time the KMS, not class loading.
        String warm = "warm-up";
        standIn.createKey(KEY_RING + "/cryptoKeys/" + warm);
        try (Kms kms = new GcpKmsService(true).create(new GcpKmsConfig(KEY_RING, "http://127.0.0.1:" + standIn.port(), null, Duration.ofSeconds(60)),
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry())) {
            kms.unwrap(kms.generateDataKey(kms.resolveKek(warm).toCompletableFuture().join()).toCompletableFuture().join().wrapped()).toCompletableFuture().join();
        }
        return new KmsFixture() {
            @Override
            public String provider() {
                return "gcp";
            }

            @Override
            public Optional<InetSocketAddress> server() {
                return Optional.of(new InetSocketAddress("127.0.0.1", standIn.port()));
            }

            @Override
            public Kms connect(InetSocketAddress address, Duration requestTimeout, MeterRegistry registry) {
                return new GcpKmsService(true).create(new GcpKmsConfig(KEY_RING, "http://127.0.0.1:" + address.getPort(), null, requestTimeout), registry);
            }

            @Override
            public String createKek() throws Exception {
                String id = "kek-" + UUID.randomUUID();
                standIn.createKey(KEY_RING + "/cryptoKeys/" + id);
                return id;
            }

            @Override
            public String absentKek() {
                return "absent-" + UUID.randomUUID();
            }

            @Override
            public void disable(String kek) {
                standIn.setEnabled(KEY_RING + "/cryptoKeys/" + kek, false);
            }

            @Override
            public void enable(String kek) {
                standIn.setEnabled(KEY_RING + "/cryptoKeys/" + kek, true);
            }

            @Override
            public void rotate(String kek) throws Exception {
                standIn.rotate(KEY_RING + "/cryptoKeys/" + kek);
            }

            @Override
            public String wrappingKey(WrappedKey wrapped) {
                return "version " + CloudKmsStandIn.versionOf(wrapped.ciphertext());
            }

            @Override
            public void close() {
                standIn.close();
            }
        };
    }
}
