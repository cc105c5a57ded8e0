package io.sluice.kms.aws;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import java.util.Base64;

import org.junit.jupiter.api.AfterEach;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.Test;

import software.amazon.awssdk.services.kms.KmsClient;
import software.amazon.awssdk.services.kms.model.KeySpec;
import software.amazon.awssdk.services.kms.model.KeyUsageType;
import software.amazon.awssdk.services.kms.model.KeyMetadata;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.kms.DataKey;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsException;
import io.sluice.kms.KmsForbiddenException;
import io.sluice.kms.UnknownKeyException;
import io.sluice.kms.WrappedKey;
import io.sluice.kms.metrics.MeteredKms;
import io.sluice.testkit.MotoServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What is AWS's own, against moto: the ways AWS names a key, the encryption context and key binding of a wrapped key,
 * the key states and kinds the provider refuses, credentials from the SDK's default chain, the threads that complete
 * its calls, and its call count against moto's own record of requests.
 */
class AwsKmsMotoTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MotoServer moto = Moto.server();
    private final KmsClient operator = Moto.operator();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
        operator.close();
    }

    private Kms kms() {
        Kms kms = new AwsKmsService(name -> null).create(Moto.config(moto.endpoint(), Duration.ofSeconds(5)), registry);
        closeables.add(kms);
        return kms;
    }

    private KeyMetadata newKey(String alias) {
        KeyMetadata key = operator.createKey(k -> k.description("sluice AwsKmsMotoTest")).keyMetadata();
        if (alias != null) {
            operator.createAlias(a -> a.aliasName(alias).targetKeyId(key.keyId()));
        }
        return key;
    }

    @Test
    void aKeyIdAKeyArnAnAliasAndAnAliasArnEachWork() {
        String alias = "alias/sluice-names-" + UUID.randomUUID();
        KeyMetadata key = newKey(alias);
        String aliasArn = key.arn().replaceFirst(":key/.*", ":" + alias);
        Kms kms = kms();
        for (String name : List.of(key.keyId(), key.arn(), alias, aliasArn)) {
            KekRef kek = join(kms.resolveKek(name));
            DataKey dataKey = join(kms.generateDataKey(kek));
            assertThat(kek).isEqualTo(new KekRef(name, 1));
            assertThat(dataKey.wrapped().kekName()).isEqualTo(name);
            assertThat(join(kms.unwrap(WrappedKey.parse(dataKey.wrapped().toBytes()))).getEncoded()).as(name).isEqualTo(dataKey.key().getEncoded());
        }
    }

    @Test
    void aWrappedKeyIsBoundToItsKekNameAndForAKeyIdToThatKey() {
        KeyMetadata a = newKey("alias/sluice-bind-a-" + UUID.randomUUID());
        KeyMetadata b = newKey(null);
        Kms kms = kms();
        DataKey byId = join(kms.generateDataKey(new KekRef(a.keyId(), 1)));

        // Same key, another name: the encryption context differs, so AWS refuses it.
        assertThat(failure(kms.unwrap(new WrappedKey(a.arn(), byId.wrapped().ciphertext())))).isExactlyInstanceOf(KmsException.class)
                .hasMessageContaining("not a ciphertext of this key with this encryption context");
        // Another key's id: Decrypt names the key, so AWS refuses it too (moto says AccessDenied, AWS IncorrectKeyException).
        KmsException other = failure(kms.unwrap(new WrappedKey(b.keyId(), byId.wrapped().ciphertext())));
        assertThat(other.isRetriable()).isFalse();
        // Not AWS's at all, or longer than AWS's ciphertexts can be.
        assertThat(failure(kms.unwrap(new WrappedKey(a.keyId(), new byte[] { 0, 1, 2 })))).isExactlyInstanceOf(KmsException.class);
        assertThat(failure(kms.unwrap(new WrappedKey(a.keyId(), new byte[6145])))).isExactlyInstanceOf(KmsException.class)
                .hasMessageContaining("at most 6144");
        assertThat(join(kms.unwrap(byId.wrapped())).getEncoded()).isEqualTo(byId.key().getEncoded());
    }

    @Test
    void disabledPendingDeletionAndAsymmetricKeysAreRefusedAndNamesAreChecked() {
        Kms kms = kms();
        KeyMetadata disabled = newKey(null);
        operator.disableKey(k -> k.keyId(disabled.keyId()));
        assertThat(failure(kms.resolveKek(disabled.keyId()))).isInstanceOf(KmsForbiddenException.class).hasMessageContaining("is Disabled");

        KeyMetadata deleted = newKey(null);
        operator.scheduleKeyDeletion(k -> k.keyId(deleted.keyId()).pendingWindowInDays(7));
        assertThat(failure(kms.resolveKek(deleted.keyId()))).isInstanceOf(KmsForbiddenException.class).hasMessageContaining("PendingDeletion");

        KeyMetadata rsa = operator.createKey(k -> k.keySpec(KeySpec.RSA_2048).keyUsage(KeyUsageType.ENCRYPT_DECRYPT)).keyMetadata();
        assertThat(failure(kms.resolveKek(rsa.keyId()))).isExactlyInstanceOf(KmsException.class).hasMessageContaining("symmetric");

        assertThat(failure(kms.resolveKek("alias/sluice-missing-" + UUID.randomUUID()))).isInstanceOf(UnknownKeyException.class);
        assertThat(failure(kms.resolveKek("no spaces or quotes\""))).isInstanceOf(UnknownKeyException.class).hasMessageContaining("not an AWS KMS key id");
        assertThat(failure(kms.generateDataKey(new KekRef("x".repeat(2049), 1)))).isInstanceOf(UnknownKeyException.class);
    }

    @Test
    void credentialsComeFromTheDefaultChainWhenNoneAreConfigured() {
        String alias = "alias/sluice-chain-" + UUID.randomUUID();
        newKey(alias);
        // The chain's second link, Java system properties; the environment (its first) cannot be set from here.
        System.setProperty("aws.accessKeyId", MotoServer.ACCESS_KEY_ID);
        System.setProperty("aws.secretAccessKey", MotoServer.SECRET_ACCESS_KEY);
        try {
            Kms kms = new AwsKmsService(Map.of("AWS_REGION", MotoServer.REGION)::get)
                    .create(new AwsKmsConfig(null, moto.endpoint(), null, null, null), registry);
            closeables.add(kms);
            DataKey dataKey = join(kms.generateDataKey(join(kms.resolveKek(alias))));
            assertThat(join(kms.unwrap(dataKey.wrapped())).getEncoded()).isEqualTo(dataKey.key().getEncoded());
        }
        finally {
            System.clearProperty("aws.accessKeyId");
            System.clearProperty("aws.secretAccessKey");
        }
    }

    @Test
    void callsCompleteOnTheProvidersThreadsAndAreCountedAsMotoServedThem() throws Exception {
        String alias = "alias/sluice-count-" + UUID.randomUUID();
        newKey(alias);
        Kms kms = kms();
        long generatedBefore = moto.served("GenerateDataKey");
        long decryptedBefore = moto.served("Decrypt");

        String thread = join(kms.resolveKek(alias).thenApply(k -> Thread.currentThread().getName()));
        List<DataKey> keys = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            keys.add(join(kms.generateDataKey(new KekRef(alias, 1))));
        }
        join(kms.unwrap(keys.get(0).wrapped()));

        assertThat(thread).startsWith("sluice-kms-aws-");
        assertThat(moto.served("GenerateDataKey") - generatedBefore).isEqualTo(3);
        assertThat(moto.served("Decrypt") - decryptedBefore).isEqualTo(1);
        assertThat(registry.get(MeteredKms.CALLS).tag("provider", "aws").tag("operation", "generate_data_key").timer().count()).isEqualTo(3);
        assertThat(registry.get(MeteredKms.CALLS).tag("provider", "aws").tag("operation", "unwrap").timer().count()).isEqualTo(1);
    }

    @Test
    void noSecretOrPlaintextKeyReachesTheLogs() {
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.start();
        root.addAppender(events);
        List<String> secrets = new ArrayList<>(List.of(MotoServer.SECRET_ACCESS_KEY));
        try {
            String alias = "alias/sluice-logs-" + UUID.randomUUID();
            newKey(alias);
            Kms kms = kms();
            DataKey dataKey = join(kms.generateDataKey(join(kms.resolveKek(alias))));
            secrets.add(Base64.getEncoder().encodeToString(dataKey.key().getEncoded()));
            failure(kms.unwrap(new WrappedKey(alias, new byte[] { 9, 9, 9 })));
            failure(kms.resolveKek("alias/sluice-missing-" + UUID.randomUUID()));
            Kms wrongSecret = new AwsKmsService(name -> null).create(new AwsKmsConfig(MotoServer.REGION, moto.endpoint(),
                    new AwsCredentials(MotoServer.ACCESS_KEY_ID, "not-the-secret-" + UUID.randomUUID(), null), null, null), registry);
            closeables.add(wrongSecret);
            secrets.add("not-the-secret-");
        }
        finally {
            root.detachAppender(events);
        }
        assertThat(events.list).as("the provider logs its start").isNotEmpty();
        for (ILoggingEvent event : events.list) {
            String text = event.getFormattedMessage()
                    + (event.getThrowableProxy() == null ? "" : ThrowableProxyUtil.asString(event.getThrowableProxy()));
            for (String secret : secrets) {
                assertThat(text).as("log line %s", event.getFormattedMessage()).doesNotContain(secret);
            }
        }
    }

    static <T> T join(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        catch (ExecutionException e) {
            throw new AssertionError("the KMS call failed: " + e.getCause(), e.getCause());
        }
        catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static KmsException failure(CompletionStage<?> stage) {
        try {
            stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        catch (ExecutionException e) {
            return KmsException.find(e.getCause()).orElseThrow(() -> new AssertionError("not a KmsException", e.getCause()));
        }
        catch (Exception e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("expected a failure");
    }
}
