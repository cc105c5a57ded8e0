package io.sluice.kms;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * Makes {@link Kms} instances of one kind from configuration. Found with {@link java.util.ServiceLoader} (list the
 * class in {@code META-INF/services/io.sluice.kms.KmsService}) and named in configuration by its simple or fully
 * qualified class name, e.g. {@code kms: VaultKmsService}.
 *
 * <pre>{@code
 * KmsService<?> service = context.pluginInstance(KmsService.class, config.kms());
 * Object kmsConfig = ConfigLoader.bind(config.kmsConfig(), service.configType(), path + ".kmsConfig");
 * Kms kms = service.createFrom(kmsConfig, context.meterRegistry());
 * ...
 * kms.close();
 * }</pre>
 *
 * @param <C> the configuration record, bound from YAML by Jackson
 */
public interface KmsService<C> {

    /** The record the {@code kmsConfig} section binds to. */
    Class<C> configType();

    /**
     * A KMS client for this configuration. Does not contact the KMS: a KMS that is down at start-up makes calls fail
     * with {@link KmsUnavailableException} until it is back, rather than stopping the proxy.
     *
     * @param registry where the client records its calls, latencies and failures
     * @throws IllegalArgumentException {@code "field: why"} when the configuration is unusable (missing file, two
     *         kinds of credentials, ...)
     */
    Kms create(C config, MeterRegistry registry);

    /** {@link #create} for callers that hold the service as {@code KmsService<?>} and the config as an Object. */
    default Kms createFrom(Object config, MeterRegistry registry) {
        if (config != null && !configType().isInstance(config)) {
            throw new IllegalArgumentException("expected a " + configType().getSimpleName() + ", not a " + config.getClass().getSimpleName());
        }
        return create(configType().cast(config), registry);
    }
}
