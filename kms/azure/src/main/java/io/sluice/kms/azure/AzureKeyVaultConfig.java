package io.sluice.kms.azure;

import java.time.Duration;

/**
 * Configuration of the Azure Key Vault provider ({@code kms: AzureKeyVaultKmsService}). The KEK names RecordEncryption
 * gives ({@code kek:}) are key names in this vault; each wraps with its current version.
 *
 * <pre>{@code
 * kmsConfig:
 *   vaultUrl: https://my-vault.vault.azure.net      # or https://my-hsm.managedhsm.azure.net
 *   algorithm: RSA-OAEP-256                          # or A256KW (Managed HSM symmetric keys)
 *   credentials:                                     # absent: DefaultAzureCredential
 *     tenantId: 00000000-0000-0000-0000-000000000000
 *     clientId: 11111111-1111-1111-1111-111111111111
 *     clientSecretFile: /run/secrets/azure-client-secret
 *   trustedCertificates: /etc/sluice/vault-ca.pem    # optional, for a vault behind a private CA
 *   requestTimeout: 10s
 * }</pre>
 *
 * @param vaultUrl the vault's (or Managed HSM's) https URL
 * @param algorithm the key-wrap algorithm: {@code RSA-OAEP-256} (default; RSA keys in Key Vault or Managed HSM) or
 *        {@code A256KW} (AES keys, Managed HSM only)
 * @param credentials a service principal's client secret; absent means {@code DefaultAzureCredential} (environment,
 *        workload identity, managed identity)
 * @param trustedCertificates a PEM file of CA certificates to trust instead of the JDK's (tests, private endpoints)
 * @param disableChallengeResourceVerification skip the SDK's check that the vault's authentication challenge names a
 *        resource of the vault's own domain (only for a vault under a custom domain, and the tests' stand-in)
 * @param connectTimeout connecting to the vault (default 5s)
 * @param requestTimeout one call, token included (default 10s); the SDK does not retry, the key cache does
 */
public record AzureKeyVaultConfig(String vaultUrl, String algorithm, AzureCredentials credentials, String trustedCertificates,
                                  Boolean disableChallengeResourceVerification, Duration connectTimeout, Duration requestTimeout) {

    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

    public AzureKeyVaultConfig {
        algorithm = algorithm == null ? "RSA-OAEP-256" : algorithm;
        disableChallengeResourceVerification = Boolean.TRUE.equals(disableChallengeResourceVerification);
        connectTimeout = connectTimeout == null ? DEFAULT_CONNECT_TIMEOUT : connectTimeout;
        requestTimeout = requestTimeout == null ? DEFAULT_REQUEST_TIMEOUT : requestTimeout;
    }

    /**
     * A service principal's client secret (Microsoft Entra ID).
     *
     * @param tenantId the directory (tenant) id
     * @param clientId the application (client) id
     * @param clientSecret the secret itself (prefer {@code clientSecretFile})
     * @param clientSecretFile a file holding the secret, e.g. a mounted Kubernetes Secret
     */
    public record AzureCredentials(String tenantId, String clientId, String clientSecret, String clientSecretFile) {
        @Override
        public String toString() {
            return "AzureCredentials[tenantId=" + tenantId + ", clientId=" + clientId + "]";
        }
    }
}
