package io.sluice.kms;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

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
        return create(typed(config), registry);
    }

    /**
     * Checks {@code config} as {@link #create} would, reaching no network service: what {@code sluice proxy --validate}
     * runs in CI. Throws {@link IllegalArgumentException} naming the bad field. The default creates and closes the
     * KMS, which is right for one that connects lazily or to nothing; a KMS that logs in when created overrides it.
     */
    default void validate(C config) {
        create(config, new SimpleMeterRegistry()).close();
    }

    /** {@link #validate} for callers that hold the service as {@code KmsService<?>} and the config as an Object. */
    default void validateFrom(Object config) {
        validate(typed(config));
    }

    private C typed(Object config) {
        if (config != null && !configType().isInstance(config)) {
            throw new IllegalArgumentException("expected a " + configType().getSimpleName() + ", not a " + config.getClass().getSimpleName());
        }
        return configType().cast(config);
    }
}
