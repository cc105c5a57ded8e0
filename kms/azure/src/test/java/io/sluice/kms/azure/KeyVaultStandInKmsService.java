package io.sluice.kms.azure;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsService;

/**
 * {@code kms: KeyVaultStandInKmsService}: {@link AzureKeyVaultKmsService} itself, configured by the same
 * {@code kmsConfig} ({@link AzureKeyVaultConfig}), with one difference: its credential is {@link KeyVaultStandIn}'s
 * token, since Microsoft Entra ID cannot run here and the provider's credentials (DefaultAzureCredential, a client
 * secret) all ask Entra ID. So that a proxy configured in YAML talks to the stand-in; the tests that load it list it
 * in their own {@code META-INF/services}.
 */
public final class KeyVaultStandInKmsService implements KmsService<AzureKeyVaultConfig> {

    private final AzureKeyVaultKmsService provider = new AzureKeyVaultKmsService(KeyVaultStandIn.CREDENTIAL);

    @Override
    public Class<AzureKeyVaultConfig> configType() {
        return AzureKeyVaultConfig.class;
    }

    @Override
    public void validate(AzureKeyVaultConfig config) {
        provider.validate(config);
    }

    @Override
    public Kms create(AzureKeyVaultConfig config, MeterRegistry registry) {
        return provider.create(config, registry);
    }
}
