package io.sluice.kms.vault;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import javax.net.ssl.SSLContext;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsService;
import io.sluice.kms.metrics.MeteredKms;

/** {@code kms: VaultKmsService}: KEKs in HashiCorp Vault's (or OpenBao's) Transit engine. See {@link VaultKmsConfig}. */
public final class VaultKmsService implements KmsService<VaultKmsConfig> {

    private static final Logger LOG = LoggerFactory.getLogger(VaultKmsService.class);

    private final UnaryOperator<String> environment;

    public VaultKmsService() {
        this(System::getenv);
    }

    /** @param environment looks up environment variables (tests pass their own) */
    VaultKmsService(UnaryOperator<String> environment) {
        this.environment = environment;
    }

    @Override
    public Class<VaultKmsConfig> configType() {
        return VaultKmsConfig.class;
    }

    /** Every check {@link #create} makes (URL, paths, timeouts, credentials and their files, TLS material); no login. */
    @Override
    public void validate(VaultKmsConfig config) {
        checked(config);
    }

    @Override
    public Kms create(VaultKmsConfig config, MeterRegistry registry) {
        Checked checked = checked(config);
        String url = checked.url();
        String mount = checked.mount();
        String namespace = checked.namespace();
        VaultCredentials credentials = checked.credentials();
        SSLContext ssl = checked.ssl();

        AtomicInteger threads = new AtomicInteger();
        ExecutorService httpExecutor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "sluice-kms-vault-http-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        HttpClient http = HttpClient.newBuilder()
                // Plain http/2 would be an h2c upgrade, which Vault does not do and Vault Agent mishandles.
                .version(url.startsWith("https:") ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1)
                .connectTimeout(config.connectTimeout())
                .sslContext(ssl)
                .executor(httpExecutor)
                .build();
        TransitClient transit = new TransitClient(http, url, mount, namespace, config.requestTimeout());
        VaultSession session = new VaultSession(credentials, new VaultDriver(url, namespace, http, config.requestTimeout()), registry);
        VaultKms kms = new VaultKms(transit, session, httpExecutor);
        session.start();
        LOG.info("Vault Transit KMS at {}, mount {}{}, authenticating with {}", url, mount,
                namespace == null ? "" : ", namespace " + namespace, credentials);
        return new MeteredKms(kms, "vault", registry);
    }

    private static String vaultUrl(String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("vaultUrl: required");
        }
        String url = value.strip().replaceAll("/+$", "");
        try {
            URI uri = new URI(url);
            if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
                throw new IllegalArgumentException("vaultUrl: expected http(s)://host:port, not '" + value + "'");
            }
            if (uri.getQuery() != null || uri.getFragment() != null || uri.getUserInfo() != null) {
                throw new IllegalArgumentException("vaultUrl: must not have a query, fragment or user info");
            }
        }
        catch (URISyntaxException e) {
            throw new IllegalArgumentException("vaultUrl: not a URL: " + e.getMessage(), e);
        }
        return url;
    }

    private static String pathSetting(String field, String value) {
        String stripped = value.strip().replaceAll("^/+|/+$", "");
        if (stripped.isEmpty()) {
            throw new IllegalArgumentException(field + ": must not be empty");
        }
        if (!stripped.matches("[A-Za-z0-9_.\\-/]+") || Stream.of(stripped.split("/")).anyMatch(s -> s.isEmpty() || s.equals("..") || s.equals("."))) {
            throw new IllegalArgumentException(field + ": '" + value + "' is not a Vault path");
        }
        return stripped;
    }

    private static void positive(String field, Duration value) {
        if (value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(field + ": must be positive");
        }
    }

    private record Checked(String url, String mount, String namespace, VaultCredentials credentials, SSLContext ssl) {
    }

    private Checked checked(VaultKmsConfig config) {
        if (config == null) {
            throw new IllegalArgumentException("vaultUrl: required");
        }
        String url = vaultUrl(config.vaultUrl());
        String mount = pathSetting("mount", config.mount());
        String namespace = config.namespace() == null ? null : pathSetting("namespace", config.namespace());
        positive("connectTimeout", config.connectTimeout());
        positive("requestTimeout", config.requestTimeout());
        return new Checked(url, mount, namespace, credentials(config.auth()), tls(url, config.tls()));
    }

    private VaultCredentials credentials(VaultAuth auth) {
        if (auth == null) {
            throw new IllegalArgumentException("auth: one of token, tokenFile, tokenEnv or appRole is required");
        }
        long kinds = Stream.of(auth.token(), auth.tokenFile(), auth.tokenEnv(), auth.appRole()).filter(v -> v != null).count();
        if (kinds != 1) {
            throw new IllegalArgumentException("auth: exactly one of token, tokenFile, tokenEnv or appRole, not " + kinds);
        }
        if (auth.token() != null) {
            if (auth.token().isBlank()) {
                throw new IllegalArgumentException("auth.token: must not be empty");
            }
            return StaticToken.of(auth.token().strip());
        }
        if (auth.tokenFile() != null) {
            Path file = readableFile("auth.tokenFile", auth.tokenFile());
            return StaticToken.fromFile(file);
        }
        if (auth.tokenEnv() != null) {
            String token = environment.apply(auth.tokenEnv());
            if (token == null || token.isBlank()) {
                throw new IllegalArgumentException("auth.tokenEnv: environment variable " + auth.tokenEnv() + " is not set");
            }
            return StaticToken.of(token.strip());
        }
        AppRole appRole = auth.appRole();
        if (appRole.roleId() == null || appRole.roleId().isBlank()) {
            throw new IllegalArgumentException("auth.appRole.roleId: required");
        }
        if ((appRole.secretId() == null) == (appRole.secretIdFile() == null)) {
            throw new IllegalArgumentException("auth.appRole: exactly one of secretId or secretIdFile");
        }
        if (appRole.secretIdFile() != null) {
            readableFile("auth.appRole.secretIdFile", appRole.secretIdFile());
        }
        pathSetting("auth.appRole.mount", appRole.mount());
        return new AppRoleLogin(appRole);
    }

    private static Path readableFile(String field, String name) {
        Path file = Path.of(name);
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(field + ": '" + name + "' does not exist");
        }
        try {
            if (StaticToken.read(file).isEmpty()) {
                throw new IllegalArgumentException(field + ": '" + name + "' is empty");
            }
        }
        catch (IOException e) {
            throw new IllegalArgumentException(field + ": '" + name + "' cannot be read: " + e.getMessage(), e);
        }
        return file;
    }

    private static SSLContext tls(String url, VaultTls tls) {
        if (tls == null) {
            return VaultTrust.sslContext(null);
        }
        if (!url.startsWith("https:")) {
            throw new IllegalArgumentException("tls: set, but vaultUrl is not https");
        }
        if (tls.insecure() && tls.trustStoreFile() != null) {
            throw new IllegalArgumentException("tls: insecure and trustStoreFile exclude each other");
        }
        if (!tls.insecure() && tls.trustStoreFile() == null) {
            throw new IllegalArgumentException("tls.trustStoreFile: required unless insecure");
        }
        if (tls.insecure()) {
            LOG.warn("Vault KMS: TLS certificate and host name checks are OFF (tls.insecure); anyone on the path can read the keys");
        }
        return VaultTrust.sslContext(tls);
    }
}
