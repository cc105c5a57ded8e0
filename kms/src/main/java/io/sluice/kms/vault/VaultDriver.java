package io.sluice.kms.vault;

import java.net.http.HttpClient;
import java.time.Duration;

import io.github.jopenlibs.vault.EnvironmentLoader;
import io.github.jopenlibs.vault.Vault;
import io.github.jopenlibs.vault.VaultConfig;
import io.github.jopenlibs.vault.VaultException;
import io.github.jopenlibs.vault.api.Auth;

/**
 * Vault driver instances for login, renewal and token lookup. Its calls block: run them on the auth thread, never on
 * an event loop.
 *
 * <p>Configured to share the Transit client's {@link HttpClient} (otherwise the driver builds a new client, with its
 * own connection and selector thread, for every request), with engine version 1 (its default of 2 rewrites paths for
 * KV v2), and with no environment (it would otherwise read VAULT_TOKEN and VAULT_ADDR behind the configuration's back).
 */
final class VaultDriver {

    private static final EnvironmentLoader NO_ENVIRONMENT = new EnvironmentLoader() {
        private static final long serialVersionUID = 1L;

        @Override
        public String loadVariable(String name) {
            return null;
        }
    };

    private final String vaultUrl;
    private final String namespace;
    private final HttpClient http;
    private final int readTimeoutSeconds;

    VaultDriver(String vaultUrl, String namespace, HttpClient http, Duration requestTimeout) {
        this.vaultUrl = vaultUrl;
        this.namespace = namespace;
        this.http = http;
        this.readTimeoutSeconds = (int) Math.max(1, Math.min(Integer.MAX_VALUE, (requestTimeout.toMillis() + 999) / 1000));
    }

    /** The driver's auth API, sending {@code token} (null to log in) and the namespace. */
    Auth auth(String token) throws VaultException {
        VaultConfig config = new VaultConfig()
                .environmentLoader(NO_ENVIRONMENT)
                .address(vaultUrl)
                .engineVersion(1)
                .httpClient(http)
                .readTimeout(readTimeoutSeconds);
        if (token != null) {
            config.token(token);
        }
        // Per call rather than in the config: with a namespace in its config the driver logs a notice per instance.
        return Vault.create(config.build(), 1).auth().withNameSpace(namespace);
    }
}
