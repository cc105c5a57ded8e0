package io.sluice.kms.endtoend;

import java.nio.file.Path;

import io.sluice.kms.azure.KeyVaultStandIn;

/**
 * The Azure Key Vault provider against {@link KeyVaultStandIn} (Key Vault's REST API over TLS, the SDK's 401
 * challenge first). The YAML names {@code KeyVaultStandInKmsService}, which is {@code AzureKeyVaultKmsService} with
 * the stand-in's token for its credential; the {@code kmsConfig} is the provider's own. Microsoft Entra ID cannot run
 * here, and the provider's own credentials all ask it: a client secret with {@code AZURE_AUTHORITY_HOST} pointed at a
 * stand-in still makes a call that never reaches it (connection refused, retried until the producer gives up).
 * Refusing a KEK disables the key.
 */
final class AzureUnderTest implements KmsUnderTest {

    private final KeyVaultStandIn vault;

    AzureUnderTest(Path dir) throws Exception {
        vault = new KeyVaultStandIn(dir);
    }

    @Override
    public String provider() {
        return "azure";
    }

    @Override
    public String kmsYaml() {
        return """
                kms: KeyVaultStandInKmsService
                kmsConfig:
                  vaultUrl: %s
                  trustedCertificates: %s
                  disableChallengeResourceVerification: true
                """.formatted(vault.url(), vault.caPem());
    }

    @Override
    public void createKek(String kek) throws Exception {
        vault.createKey(kek);
    }

    @Override
    public void refuse(String kek) {
        vault.setEnabled(kek, false);
    }

    @Override
    public void close() {
        vault.close();
    }
}
