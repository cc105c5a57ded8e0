package io.sluice.kms.aws;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import javax.crypto.SecretKey;

import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kms.KmsAsyncClient;
import software.amazon.awssdk.services.kms.model.DataKeySpec;
import software.amazon.awssdk.services.kms.model.DecryptRequest;
import software.amazon.awssdk.services.kms.model.DescribeKeyRequest;
import software.amazon.awssdk.services.kms.model.EncryptionAlgorithmSpec;
import software.amazon.awssdk.services.kms.model.GenerateDataKeyRequest;
import software.amazon.awssdk.services.kms.model.KeyMetadata;
import software.amazon.awssdk.services.kms.model.KeySpec;
import software.amazon.awssdk.services.kms.model.KeyState;
import software.amazon.awssdk.services.kms.model.KeyUsageType;

import io.sluice.kms.AesKey;
import io.sluice.kms.DataKey;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsException;
import io.sluice.kms.KmsForbiddenException;
import io.sluice.kms.KmsUnavailableException;
import io.sluice.kms.UnknownKeyException;
import io.sluice.kms.WrappedKey;

/**
 * AWS KMS as a KMS: {@code DescribeKey} resolves a KEK (it must be an enabled symmetric encryption key),
 * {@code GenerateDataKey} makes an AES-256 data key, {@code Decrypt} unwraps one. A KEK is named as AWS names keys: a
 * key id, a key ARN, an alias ({@code alias/orders}) or an alias ARN.
 *
 * <p>The wrapped key is AWS's {@code CiphertextBlob} as it is, which names the key that made it; every call binds the
 * encryption context {@code {"sluice-kek": <KEK name>}}, so a data key wrapped for one KEK name does not unwrap under
 * another, and IAM policies can require it. {@code Decrypt} names the key (AWS's advice) when the KEK is a key id or
 * ARN; for an alias it does not, because an alias may be moved to a new key to rotate, and what the old key wrapped
 * must still unwrap. AWS has no key version numbers: {@link KekRef#version()} is always 1.
 *
 * <p>Calls never block the caller: each is handed to a small executor of its own, which signs it (and, when the
 * credentials chain must refresh, fetches credentials) and sends it on the SDK's Netty client; the answer is handled on
 * the same executor. The SDK does not retry (the key cache does, counting each attempt).
 */
final class AwsKms implements Kms {

    static final String CONTEXT_KEY = "sluice-kek";
    /** AWS's own bounds: key ids, ARNs and aliases up to 2048 characters of this set; ciphertext blobs up to 6144 bytes. */
    private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9:/_+=,.@-]{1,2048}");
    private static final Pattern ALIAS = Pattern.compile("(arn:[^:]+:kms:[^:]*:[^:]*:)?alias/.+");
    private static final int MAX_CIPHERTEXT = 6144;

    private final KmsAsyncClient client;
    private final ExecutorService executor;
    private final String description;

    AwsKms(KmsAsyncClient client, ExecutorService executor, String description) {
        this.client = client;
        this.executor = executor;
        this.description = description;
    }

    @Override
    public CompletionStage<KekRef> resolveKek(String name) {
        if (!validName(name)) {
            return invalidName(name);
        }
        return call("describe", name, () -> client.describeKey(DescribeKeyRequest.builder().keyId(name).build()), reply -> {
            KeyMetadata key = reply.keyMetadata();
            if (key.keyState() != KeyState.ENABLED) {
                throw new KmsForbiddenException("AWS KMS key '" + name + "' (" + key.arn() + ") is " + key.keyStateAsString() + ", not Enabled");
            }
            // AWS always reports both; a field left out (moto leaves out KeyUsage) is not held against the key.
            if (key.keyUsage() != null && key.keyUsage() != KeyUsageType.ENCRYPT_DECRYPT || key.keySpec() != null && key.keySpec() != KeySpec.SYMMETRIC_DEFAULT) {
                throw new KmsException("AWS KMS key '" + name + "' (" + key.arn() + ") is a " + key.keySpecAsString() + " " + key.keyUsageAsString()
                        + " key; record encryption needs a symmetric ENCRYPT_DECRYPT key (SYMMETRIC_DEFAULT)");
            }
            return new KekRef(name, 1);
        });
    }

    @Override
    public CompletionStage<DataKey> generateDataKey(KekRef kek) {
        String name = kek.name();
        if (!validName(name)) {
            return invalidName(name);
        }
        GenerateDataKeyRequest request = GenerateDataKeyRequest.builder().keyId(name).keySpec(DataKeySpec.AES_256).encryptionContext(context(name)).build();
        return call("generate a data key with", name, () -> client.generateDataKey(request), reply -> {
            // The SDK's own bytes (no copy), wiped once copied into the key.
            AesKey key = AesKey.aes256From(reply.plaintext() == null ? null : reply.plaintext().asByteArrayUnsafe(), "AWS KMS's data key for '" + name + "'");
            if (reply.ciphertextBlob() == null || reply.ciphertextBlob().asByteArrayUnsafe().length == 0) {
                key.destroy();
                throw new KmsException("AWS KMS's data key response for '" + name + "' lacks the ciphertext");
            }
            return new DataKey(new KekRef(name, 1), key, new WrappedKey(name, reply.ciphertextBlob().asByteArray()));
        });
    }

    @Override
    public CompletionStage<SecretKey> unwrap(WrappedKey wrapped) {
        String name = wrapped.kekName();
        if (!validName(name)) {
            return invalidName(name);
        }
        byte[] ciphertext = wrapped.ciphertext();
        if (ciphertext.length > MAX_CIPHERTEXT) {
            return CompletableFuture.failedFuture(new KmsException("not an AWS KMS ciphertext (key '" + name + "'): " + ciphertext.length
                    + " bytes, AWS's are at most " + MAX_CIPHERTEXT));
        }
        DecryptRequest.Builder request = DecryptRequest.builder()
                .ciphertextBlob(SdkBytes.fromByteArrayUnsafe(ciphertext))
                .encryptionContext(context(name))
                .encryptionAlgorithm(EncryptionAlgorithmSpec.SYMMETRIC_DEFAULT);
        if (!ALIAS.matcher(name).matches()) {
            request.keyId(name);
        }
        DecryptRequest built = request.build();
        return call("decrypt with", name, () -> client.decrypt(built), reply -> {
            return AesKey.aes256From(reply.plaintext() == null ? null : reply.plaintext().asByteArrayUnsafe(), "AWS KMS's key for '" + name + "'");
        });
    }

    @Override
    public void close() {
        executor.shutdown();
        // The SDK's close waits out Netty's graceful shutdown (a quiet period of seconds): not on the caller's thread,
        // which may be an event loop.
        Thread closer = new Thread(client::close, "sluice-kms-aws-close");
        closer.setDaemon(true);
        closer.start();
    }

    /** Sends on the executor, maps the SDK's failure, and reads the reply there too; the result fails with the KmsException itself. */
    private <R, T> CompletionStage<T> call(String operation, String key, Supplier<CompletableFuture<R>> send, Function<R, T> read) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                CompletableFuture<R> sent;
                try {
                    sent = send.get();
                }
                catch (RuntimeException e) {
                    sent = CompletableFuture.failedFuture(e);
                }
                sent.whenComplete((reply, failure) -> {
                    if (failure != null) {
                        result.completeExceptionally(AwsErrors.map(failure, operation, key));
                        return;
                    }
                    try {
                        result.complete(read.apply(reply));
                    }
                    catch (RuntimeException e) {
                        result.completeExceptionally(e instanceof KmsException ? e : new KmsException("AWS KMS's answer to " + operation + " '" + key + "': " + e, e));
                    }
                });
            });
        }
        catch (RejectedExecutionException e) {
            result.completeExceptionally(new KmsUnavailableException("the AWS KMS client is closed", e));
        }
        return result;
    }

    private static Map<String, String> context(String name) {
        return Map.of(CONTEXT_KEY, name);
    }

    private static boolean validName(String name) {
        return name != null && KEY_ID.matcher(name).matches();
    }

    private static <T> CompletionStage<T> invalidName(String name) {
        return CompletableFuture.failedFuture(new UnknownKeyException("'" + name + "' is not an AWS KMS key id, key ARN or alias"));
    }

    @Override
    public String toString() {
        return "AwsKms[" + description + "]";
    }
}
