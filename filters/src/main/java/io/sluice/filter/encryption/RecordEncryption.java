package io.sluice.filter.encryption;

import java.security.Provider;
import java.util.List;

import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.JsonNode;

import io.sluice.filter.records.RecordLimits;
import io.sluice.filter.records.RecordReaders;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsService;
import io.sluice.kms.cache.KeyCache;
import io.sluice.kms.cache.KeyCacheConfig;
import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.filter.FilterFactoryContext;

/**
 * The RecordEncryption filter: AES-256-GCM envelope encryption of selected topics' record values (and
 * optionally headers), with data keys from a KMS ({@code kms}: a {@link KmsService} by name) cached by
 * the KMS module's {@link KeyCache}. See docs/encryption.md and docs/encryption-format.md.
 */
public final class RecordEncryption implements FilterFactory<RecordEncryption.Config, RecordEncryption.Shared> {

    /**
     * @param topics         topic name patterns to encrypt ({@code *} is a wildcard)
     * @param kek            KEK name template; {@code $(topic)} is the topic name (default {@code $(topic)})
     * @param unresolvedKek  REJECT (default) or PASSTHROUGH for selected topics whose KEK does not exist
     * @param encryptHeaders encrypt header names and values too (default false)
     * @param kms            the KMS service, by simple or fully qualified class name
     * @param kmsConfig      that service's own configuration
     * @param keyCache       data-key and unwrapped-key cache limits, retries
     * @param records        how much of the records it reads to encrypt or decrypt them, at most (absent: the defaults)
     * @param onUndecryptable FAIL (default: the partition is CORRUPT_MESSAGE while the record is there) or DROP (the
     *                        record is left out) for a record of an encrypted topic that cannot be decrypted
     * @param formatVersion  the envelope format new records get: 2 (default), or 1 only while proxies that read only 1
     *                       serve the same topics (a rolling upgrade); both are always read
     * @param aesGcmProvider where AES-GCM comes from: AUTO (default: ACCP where it loads, else the JDK's), JCE or ACCP
     */
    public record Config(List<String> topics, String kek, EncryptionPolicy.UnresolvedKek unresolvedKek, Boolean encryptHeaders,
                         String kms, JsonNode kmsConfig, KeyCacheConfig keyCache, RecordLimits records,
                         EncryptionPolicy.OnUndecryptable onUndecryptable, Integer formatVersion, AesGcmProvider aesGcmProvider) {
    }

    /** What every connection's filter shares: the policy, the key cache, the KMS client, the record limits and the meters. */
    public record Shared(EncryptionPolicy policy, DataKeys keys, EncryptionMetrics metrics, UndecryptableRecords undecryptable, ProduceRefusals refusals,
                         byte formatVersion, KeyCache cache, Kms kms, RecordReaders records, Provider aesGcm) {
    }

    @Override
    public Class<Config> configType() {
        return Config.class;
    }

    @Override
    public Shared initialize(FilterFactoryContext context, Config config) {
        Checked checked = checked(context, config);
        Kms kms = checked.service().createFrom(checked.kmsConfig(), context.meterRegistry());
        KeyCache cache = KeyCache.create(kms, checked.cacheConfig(), context.meterRegistry(), context.eventLoop());
        int perKey = (int) Math.min(Integer.MAX_VALUE, checked.cacheConfig().dataKeys().maxRecords());
        return new Shared(checked.policy(), new KmsDataKeys(cache, perKey), new EncryptionMetrics(context.meterRegistry(), context.filterName()),
                new UndecryptableRecords(context.meterRegistry(), context.filterName(), LoggerFactory.getLogger(RecordEncryptionFilter.class)),
                new ProduceRefusals(context.meterRegistry(), context.filterName(), LoggerFactory.getLogger(RecordEncryptionFilter.class)),
                checked.formatVersion(), cache, kms, new RecordReaders(checked.records(), context.meterRegistry(), context.filterName()),
                checked.aesGcm());
    }

    /** The same checks as {@link #initialize}, and the KMS's own through {@link KmsService#validate}: no key cache, no KMS login. */
    @Override
    public void validate(FilterFactoryContext context, Config config) {
        Checked checked = checked(context, config);
        checked.service().validateFrom(checked.kmsConfig());
    }

    private record Checked(KmsService<?> service, Object kmsConfig, KeyCacheConfig cacheConfig, EncryptionPolicy policy, byte formatVersion,
                           RecordLimits records, Provider aesGcm) {
    }

    private static Checked checked(FilterFactoryContext context, Config config) {
        if (config == null) {
            throw new IllegalArgumentException("topics, kms and kmsConfig are required");
        }
        if (config.topics() == null || config.topics().isEmpty()) {
            throw new IllegalArgumentException("topics: at least one topic pattern is required");
        }
        if (config.kms() == null || config.kms().isBlank()) {
            throw new IllegalArgumentException("kms: the KMS service is required, e.g. VaultKmsService, AwsKmsService, AzureKeyVaultKmsService, GcpKmsService or InProcessKmsService");
        }
        String kek = config.kek() == null ? EncryptionPolicy.TOPIC_PLACEHOLDER : config.kek();
        if (kek.isBlank()) {
            throw new IllegalArgumentException("kek: must not be blank");
        }
        KeyCacheConfig cacheConfig = config.keyCache() == null ? KeyCacheConfig.defaults() : config.keyCache();
        try {
            cacheConfig.validate();
        } catch (IllegalArgumentException e) {
            // The cache names its own fields; here they sit under keyCache.
            throw new IllegalArgumentException("keyCache." + e.getMessage(), e);
        }
        int formatVersion = config.formatVersion() == null ? EncryptedValue.VERSION : config.formatVersion();
        if (formatVersion != EncryptedValue.VERSION && formatVersion != EncryptedValue.VERSION_1) {
            throw new IllegalArgumentException("formatVersion: must be 2, or 1 during a rolling upgrade from a proxy that reads only version 1");
        }

        KmsService<?> service = context.pluginInstance(KmsService.class, config.kms());
        Object kmsConfig = context.bindConfig(config.kmsConfig(), service.configType(), "kmsConfig");
        EncryptionPolicy policy = new EncryptionPolicy(config.topics(), kek,
                config.unresolvedKek() == null ? EncryptionPolicy.UnresolvedKek.REJECT : config.unresolvedKek(), Boolean.TRUE.equals(config.encryptHeaders()),
                config.onUndecryptable() == null ? EncryptionPolicy.OnUndecryptable.FAIL : config.onUndecryptable());
        Provider aesGcm = (config.aesGcmProvider() == null ? AesGcmProvider.AUTO : config.aesGcmProvider()).resolve();
        return new Checked(service, kmsConfig, cacheConfig, policy, (byte) formatVersion, RecordLimits.orDefaults(config.records()), aesGcm);
    }

    @Override
    public Filter createFilter(FilterFactoryContext context, Shared shared) {
        return new RecordEncryptionFilter(shared.policy(), shared.keys(), shared.metrics(), shared.undecryptable(), shared.refusals(),
                new RecordCipher(shared.formatVersion(), shared.aesGcm()), shared.records());
    }

    @Override
    public void close(Shared shared) {
        shared.cache().close();
        shared.kms().close();
    }
}
