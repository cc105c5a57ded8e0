package io.sluice.kms.aws;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kms.KmsClient;
import software.amazon.awssdk.services.kms.model.AliasListEntry;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.kms.Kms;
import io.sluice.kms.WrappedKey;
import io.sluice.kms.conformance.KmsConformance;
import io.sluice.kms.conformance.KmsFixture;
import io.sluice.testkit.MotoServer;

/**
 * The conformance suite against the AWS KMS provider and moto. KEKs are aliases ({@code alias/sluice-conformance-...}),
 * as deployments name them; rotating one moves its alias to a new key, the rotation an alias allows (moto's
 * RotateKeyOnDemand records a rotation without new key material, so it would prove nothing). Disabling is DisableKey.
 */
class AwsKmsConformanceTest extends KmsConformance {

    @Override
    protected KmsFixture createFixture() {
        MotoServer moto = Moto.server();
        KmsClient operator = Moto.operator();
        return new KmsFixture() {
            @Override
            public String provider() {
                return "aws";
            }

            @Override
            public Optional<InetSocketAddress> server() {
                return Optional.of(new InetSocketAddress("127.0.0.1", moto.port()));
            }

            @Override
            public Kms connect(InetSocketAddress address, Duration requestTimeout, MeterRegistry registry) {
                return new AwsKmsService(name -> null).create(Moto.config("http://127.0.0.1:" + address.getPort(), requestTimeout), registry);
            }

            @Override
            public String createKek() {
                String alias = "alias/sluice-conformance-" + UUID.randomUUID();
                operator.createAlias(a -> a.aliasName(alias).targetKeyId(newKey()));
                return alias;
            }

            @Override
            public String absentKek() {
                return "alias/sluice-absent-" + UUID.randomUUID();
            }

            @Override
            public void disable(String kek) {
                operator.disableKey(k -> k.keyId(target(kek)));
            }

            @Override
            public void enable(String kek) {
                operator.enableKey(k -> k.keyId(target(kek)));
            }

            @Override
            public void rotate(String kek) {
                operator.updateAlias(a -> a.aliasName(kek).targetKeyId(newKey()));
            }

            @Override
            public String wrappingKey(WrappedKey wrapped) {
                return operator.decrypt(d -> d.ciphertextBlob(SdkBytes.fromByteArray(wrapped.ciphertext()))
                        .encryptionContext(Map.of(AwsKms.CONTEXT_KEY, wrapped.kekName()))).keyId();
            }

            @Override
            public Optional<String> disabledKeysStillServed() {
                return Optional.of("moto 5.2.5 answers GenerateDataKey and Decrypt under a disabled key (it reports the state in DescribeKey,"
                        + " which the provider checks); RealAwsKmsTest covers the refusals against AWS itself");
            }

            @Override
            public void close() {
                operator.close();
            }

            private String newKey() {
                return operator.createKey(k -> k.description("sluice conformance")).keyMetadata().keyId();
            }

            private String target(String alias) {
                return operator.listAliases().aliases().stream().filter(a -> a.aliasName().equals(alias))
                        .map(AliasListEntry::targetKeyId).findFirst().orElseThrow();
            }
        };
    }
}
