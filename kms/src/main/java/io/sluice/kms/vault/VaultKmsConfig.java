package io.sluice.kms.vault;

import java.time.Duration;

/**
 * Configuration of the Vault Transit KMS ({@code kms: VaultKmsService}).
 *
 * <pre>{@code
 * kmsConfig:
 *   vaultUrl: https://vault.example:8200
 *   mount: transit            # default
 *   namespace: team-a         # Vault Enterprise / OpenBao namespaces; optional
 *   auth:
 *     appRole: {roleId: ..., secretIdFile: /run/secrets/vault-secret-id}
 *   tls:
 *     trustStoreFile: /etc/sluice/vault-ca.pem
 *   connectTimeout: 5s
 *   requestTimeout: 10s
 * }</pre>
 *
 * @param vaultUrl Vault's address, {@code http(s)://host:port}
 * @param mount where the Transit engine is mounted (default {@code transit})
 * @param namespace sent as {@code X-Vault-Namespace} on every request, login included
 * @param auth how to get a token; exactly one kind
 * @param tls what to trust for an {@code https} URL; the JVM's default trust when absent
 * @param connectTimeout connecting to Vault (default 5s)
 * @param requestTimeout one request, connecting excluded (default 10s)
 */
public record VaultKmsConfig(String vaultUrl, String mount, String namespace, VaultAuth auth, VaultTls tls,
                             Duration connectTimeout, Duration requestTimeout) {

    public static final String DEFAULT_MOUNT = "transit";
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

    public VaultKmsConfig {
        mount = mount == null ? DEFAULT_MOUNT : mount;
        connectTimeout = connectTimeout == null ? DEFAULT_CONNECT_TIMEOUT : connectTimeout;
        requestTimeout = requestTimeout == null ? DEFAULT_REQUEST_TIMEOUT : requestTimeout;
    }
}
