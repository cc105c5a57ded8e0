package io.sluice.kms.azure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.ExecutorService;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.azure.core.credential.TokenCredential;
import com.azure.core.http.HttpClient;
import com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder;
import com.azure.core.http.policy.FixedDelayOptions;
import com.azure.core.http.policy.RetryOptions;
import com.azure.identity.ClientSecretCredentialBuilder;
import com.azure.identity.DefaultAzureCredentialBuilder;
import com.azure.security.keyvault.keys.cryptography.CryptographyClientBuilder;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsService;
import io.sluice.kms.ProviderSupport;
import io.sluice.kms.metrics.MeteredKms;

/**
 * {@code kms: AzureKeyVaultKmsService}: KEKs in Azure Key Vault or Managed HSM, called through the Azure SDK
 * ({@code azure-security-keyvault-keys}) on the JDK's HTTP client. See {@link AzureKeyVaultConfig} and docs/kms.md.
 * Creating the KMS contacts nothing: the token is fetched on the first call, and a vault that is down at start-up makes
 * calls fail as unavailable.
 */
public final class AzureKeyVaultKmsService implements KmsService<AzureKeyVaultConfig> {

    private static final Logger LOG = LoggerFactory.getLogger(AzureKeyVaultKmsService.class);

    /** Tests give their own credential (the stand-in's token): Microsoft Entra ID cannot run here. */
    private final TokenCredential testCredential;

    public AzureKeyVaultKmsService() {
        this(null);
    }

    AzureKeyVaultKmsService(TokenCredential testCredential) {
        this.testCredential = testCredential;
    }

    @Override
    public Class<AzureKeyVaultConfig> configType() {
        return AzureKeyVaultConfig.class;
    }

    /** Every check {@link #create} makes (URL, algorithm, credentials and their file, trust file, timeouts); no network. */
    @Override
    public void validate(AzureKeyVaultConfig config) {
        checked(config);
    }

    @Override
    public Kms create(AzureKeyVaultConfig config, MeterRegistry registry) {
        Checked checked = checked(config);
        // Signs or authenticates and sends each call, and completes it: never the caller's thread, which may be an event loop.
        ExecutorService executor = ProviderSupport.threads("sluice-kms-azure", 2);
        java.net.http.HttpClient.Builder jdk = java.net.http.HttpClient.newBuilder();
        if (checked.trust() != null) {
            jdk.sslContext(checked.trust());
        }
        HttpClient http = new JdkHttpClientBuilder(jdk).executor(executor).connectionTimeout(config.connectTimeout())
                .responseTimeout(config.requestTimeout()).build();
        TokenCredential credential = testCredential != null ? testCredential : credential(config, checked.secret(), http, executor);
        // One attempt per call: the key cache retries unavailable calls with its own backoff and counts them.
        RetryOptions noRetries = new RetryOptions(new FixedDelayOptions(0, Duration.ofMillis(1)));
        String vault = checked.vaultUrl();
        boolean skipChallengeCheck = config.disableChallengeResourceVerification();
        AzureKeyVaultKms kms = new AzureKeyVaultKms(path -> {
            CryptographyClientBuilder builder = new CryptographyClientBuilder().keyIdentifier(vault + "/keys/" + path).credential(credential)
                    .httpClient(http).retryOptions(noRetries).disableKeyCaching();
            if (skipChallengeCheck) {
                builder.disableChallengeResourceVerification();
            }
            return builder.buildAsyncClient();
        }, checked.algorithm(), config.requestTimeout(), executor, "vault " + vault + ", " + checked.algorithm() + ", credentials "
                + (testCredential != null ? "given by the test" : checked.credentialsDescription()));
        LOG.info("Azure Key Vault: {}", kms);
        return new MeteredKms(kms, "azure", registry);
    }

    private static TokenCredential credential(AzureKeyVaultConfig config, String secret, HttpClient http, ExecutorService executor) {
        if (config.credentials() == null) {
            return new DefaultAzureCredentialBuilder().httpClient(http).executorService(executor).build();
        }
        return new ClientSecretCredentialBuilder().tenantId(config.credentials().tenantId().strip()).clientId(config.credentials().clientId().strip())
                .clientSecret(secret).httpClient(http).executorService(executor).build();
    }

    private record Checked(String vaultUrl, AzureKeyVaultAlgorithm algorithm, String secret, SSLContext trust, String credentialsDescription) {
    }

    private static Checked checked(AzureKeyVaultConfig config) {
        if (config == null || config.vaultUrl() == null || config.vaultUrl().isBlank()) {
            throw new IllegalArgumentException("vaultUrl: required, e.g. https://my-vault.vault.azure.net");
        }
        String vaultUrl = vaultUrl(config.vaultUrl());
        AzureKeyVaultAlgorithm algorithm = AzureKeyVaultAlgorithm.named(config.algorithm());
        ProviderSupport.positive("connectTimeout", config.connectTimeout());
        ProviderSupport.positive("requestTimeout", config.requestTimeout());
        SSLContext trust = config.trustedCertificates() == null ? null : trust(config.trustedCertificates());
        AzureKeyVaultConfig.AzureCredentials credentials = config.credentials();
        if (credentials == null) {
            return new Checked(vaultUrl, algorithm, null, trust,
                    "DefaultAzureCredential (environment, workload identity, managed identity)");
        }
        required("credentials.tenantId", credentials.tenantId());
        required("credentials.clientId", credentials.clientId());
        if ((credentials.clientSecret() == null) == (credentials.clientSecretFile() == null)) {
            throw new IllegalArgumentException("credentials: exactly one of clientSecret or clientSecretFile");
        }
        String secret = credentials.clientSecret() != null ? credentials.clientSecret().strip()
                : ProviderSupport.secretFile("credentials.clientSecretFile", credentials.clientSecretFile());
        if (secret.isEmpty()) {
            throw new IllegalArgumentException("credentials.clientSecret: must not be empty");
        }
        return new Checked(vaultUrl, algorithm, secret, trust, "client secret of " + credentials.clientId().strip());
    }

    private static String vaultUrl(String value) {
        URI uri;
        try {
            uri = new URI(value.strip());
        }
        catch (URISyntaxException e) {
            throw new IllegalArgumentException("vaultUrl: not a URL: " + e.getMessage(), e);
        }
        if (!"https".equals(uri.getScheme()) || uri.getHost() == null) {
            // The SDK sends bearer tokens over https only.
            throw new IllegalArgumentException("vaultUrl: expected https://host[:port], not '" + value + "'");
        }
        if (uri.getQuery() != null || uri.getFragment() != null || uri.getUserInfo() != null
                || uri.getPath() != null && !uri.getPath().isEmpty() && !uri.getPath().equals("/")) {
            throw new IllegalArgumentException("vaultUrl: must be scheme, host and port only, not '" + value + "'");
        }
        return "https://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
    }

    private static SSLContext trust(String file) {
        Path path = Path.of(file);
        if (!Files.isRegularFile(path)) {
            throw new IllegalArgumentException("trustedCertificates: '" + file + "' does not exist");
        }
        try (InputStream in = Files.newInputStream(path)) {
            Collection<? extends Certificate> certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (certificates.isEmpty()) {
                throw new IllegalArgumentException("trustedCertificates: '" + file + "' holds no PEM certificate");
            }
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int i = 0;
            for (Certificate c : certificates) {
                store.setCertificateEntry("ca-" + i++, c);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            return context;
        }
        catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("trustedCertificates: '" + file + "' cannot be read as PEM certificates: " + e.getMessage(), e);
        }
    }

    private static void required(String field, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(field + ": required with a client secret (or leave credentials out for DefaultAzureCredential)");
        }
    }
}
