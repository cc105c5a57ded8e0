package io.sluice.kms.gcp;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.google.api.gax.core.CredentialsProvider;
import com.google.api.gax.core.FixedCredentialsProvider;
import com.google.api.gax.core.FixedExecutorProvider;
import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.retrying.RetrySettings;
import com.google.auth.oauth2.GoogleCredentials;
import com.google.cloud.kms.v1.KeyManagementServiceClient;
import com.google.cloud.kms.v1.KeyManagementServiceSettings;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsService;
import io.sluice.kms.ProviderSupport;
import io.sluice.kms.metrics.MeteredKms;

/**
 * {@code kms: GcpKmsService}: KEKs in Google Cloud KMS (symmetric CryptoKeys), called through {@code google-cloud-kms}
 * on its REST transport. See {@link GcpKmsConfig} and docs/kms.md. Creating the KMS contacts nothing: the client (and
 * application default credentials) is made on the first call.
 */
public final class GcpKmsService implements KmsService<GcpKmsConfig> {

    private static final Logger LOG = LoggerFactory.getLogger(GcpKmsService.class);
    private static final Pattern KEY_RING = Pattern.compile("projects/[a-zA-Z0-9_-]{1,63}/locations/[a-zA-Z0-9_-]{1,63}/keyRings/[a-zA-Z0-9_-]{1,63}");
    private static final Pattern ENDPOINT = Pattern.compile("(https?://)?[A-Za-z0-9.-]+(:\\d{1,5})?|(https?://)?\\[[0-9a-fA-F:]+\\](:\\d{1,5})?");

    private final boolean noCredentials;

    public GcpKmsService() {
        this(false);
    }

    /** @param noCredentials the tests' stand-in asks for none (Google's token service cannot run here) */
    GcpKmsService(boolean noCredentials) {
        this.noCredentials = noCredentials;
    }

    @Override
    public Class<GcpKmsConfig> configType() {
        return GcpKmsConfig.class;
    }

    /** Every check {@link #create} makes (key ring, endpoint, credentials file, timeout); no network. */
    @Override
    public void validate(GcpKmsConfig config) {
        checked(config);
    }

    @Override
    public Kms create(GcpKmsConfig config, MeterRegistry registry) {
        GcpKmsConfig c = checked(config);
        String endpoint = c.endpoint() == null ? GcpKmsConfig.DEFAULT_ENDPOINT : c.endpoint().strip();
        AtomicInteger threads = new AtomicInteger();
        // The REST transport's blocking I/O and the completions of our stages: never the caller's thread.
        ScheduledExecutorService executor = Executors.newScheduledThreadPool(2, r -> {
            Thread t = new Thread(r, "sluice-kms-gcp-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        Duration timeout = c.requestTimeout();
        String credentials = noCredentials ? "none (test)" : c.credentialsFile() == null
                ? "application default credentials (GOOGLE_APPLICATION_CREDENTIALS, workload identity, metadata server)"
                : "from " + c.credentialsFile();
        GcpKms kms = new GcpKms(() -> client(c, endpoint, timeout, executor), c.keyRing(), executor,
                "endpoint " + endpoint + (c.keyRing() == null ? "" : ", key ring " + c.keyRing()) + ", credentials " + credentials);
        LOG.info("Google Cloud KMS: {}", kms);
        return new MeteredKms(kms, "gcp", registry);
    }

    private KeyManagementServiceClient client(GcpKmsConfig config, String endpoint, Duration timeout, ScheduledExecutorService executor) {
        try {
            KeyManagementServiceSettings.Builder settings = KeyManagementServiceSettings.newHttpJsonBuilder();
            settings.setEndpoint(endpoint);
            settings.setCredentialsProvider(credentials(config));
            settings.setBackgroundExecutorProvider(FixedExecutorProvider.create(executor));
            settings.setTransportChannelProvider(KeyManagementServiceSettings.defaultHttpJsonTransportProviderBuilder().setExecutor(executor).build());
            // One attempt per call: the key cache retries unavailable calls with its own backoff and counts them.
            RetrySettings once = RetrySettings.newBuilder().setMaxAttempts(1).setTotalTimeoutDuration(timeout).setInitialRpcTimeoutDuration(timeout)
                    .setMaxRpcTimeoutDuration(timeout).setRpcTimeoutMultiplier(1.0).build();
            settings.encryptSettings().setRetrySettings(once).setRetryableCodes(Set.of());
            settings.decryptSettings().setRetrySettings(once).setRetryableCodes(Set.of());
            settings.getCryptoKeySettings().setRetrySettings(once).setRetryableCodes(Set.of());
            return KeyManagementServiceClient.create(settings.build());
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot make the Cloud KMS client: " + e.getMessage(), e);
        }
    }

    private CredentialsProvider credentials(GcpKmsConfig config) throws IOException {
        if (noCredentials) {
            return NoCredentialsProvider.create();
        }
        if (config.credentialsFile() == null) {
            return KeyManagementServiceSettings.defaultCredentialsProviderBuilder().build();
        }
        try (InputStream in = Files.newInputStream(Path.of(config.credentialsFile()))) {
            return FixedCredentialsProvider.create(GoogleCredentials.fromStream(in).createScoped(KeyManagementServiceSettings.getDefaultServiceScopes()));
        }
    }

    private static GcpKmsConfig checked(GcpKmsConfig config) {
        if (config == null) {
            config = new GcpKmsConfig(null, null, null, null);
        }
        if (config.keyRing() != null && !KEY_RING.matcher(config.keyRing().strip()).matches()) {
            throw new IllegalArgumentException("keyRing: expected projects/PROJECT/locations/LOCATION/keyRings/RING, not '" + config.keyRing() + "'");
        }
        if (config.endpoint() != null && !ENDPOINT.matcher(config.endpoint().strip()).matches()) {
            throw new IllegalArgumentException("endpoint: expected host:port (or http(s)://host:port), not '" + config.endpoint() + "'");
        }
        if (config.credentialsFile() != null && !Files.isRegularFile(Path.of(config.credentialsFile()))) {
            throw new IllegalArgumentException("credentialsFile: '" + config.credentialsFile() + "' does not exist");
        }
        ProviderSupport.positive("requestTimeout", config.requestTimeout());
        return new GcpKmsConfig(config.keyRing() == null ? null : config.keyRing().strip(), config.endpoint(), config.credentialsFile(),
                config.requestTimeout());
    }
}
