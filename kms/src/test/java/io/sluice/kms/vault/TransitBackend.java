package io.sluice.kms.vault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.net.ssl.SSLContext;

import io.sluice.kms.vault.standin.VaultAdmin;
import io.sluice.kms.vault.standin.VaultTransitStandIn;

/**
 * A Vault to test against: the in-process stand-in, always; or a real Vault or OpenBao named by {@code VAULT_ADDR}
 * and {@code VAULT_TOKEN} (a token that may enable mounts and auth methods and write policies, such as a dev server's
 * root token). Optional: {@code VAULT_NAMESPACE}, {@code VAULT_CACERT}, {@code VAULT_SKIP_VERIFY}, and
 * {@code SLUICE_TEST_VAULT_NAMESPACE} (an existing namespace, for the namespace test).
 *
 * <p>Each backend gets a Transit mount, a key name prefix unique to the run, and the least-privilege policy from
 * docs/kms.md for those keys.
 */
final class TransitBackend implements AutoCloseable {

    static final String MOUNT = "sluice-it-transit";

    final String name;
    final String url;
    final String rootToken;
    final String namespace;
    final String otherNamespace;
    final VaultTls tls;
    final VaultTransitStandIn standIn;
    final String keyPrefix = "kek-it-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    final String policyName = "sluice-kms-it-" + UUID.randomUUID().toString().substring(0, 8);
    private final String skipReason;
    private boolean prepared;

    private TransitBackend(String name, String url, String rootToken, String namespace, String otherNamespace, VaultTls tls,
                           VaultTransitStandIn standIn, String skipReason) {
        this.name = name;
        this.url = url;
        this.rootToken = rootToken;
        this.namespace = namespace;
        this.otherNamespace = otherNamespace;
        this.tls = tls;
        this.standIn = standIn;
        this.skipReason = skipReason;
    }

    static TransitBackend standIn() {
        try {
            VaultTransitStandIn standIn = VaultTransitStandIn.start();
            return new TransitBackend("stand-in", standIn.url(), standIn.rootToken(), null, "team-a", null, standIn, null);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static TransitBackend realVault(Map<String, String> env) {
        String addr = env.get("VAULT_ADDR");
        String token = env.get("VAULT_TOKEN");
        if (addr == null || addr.isBlank() || token == null || token.isBlank()) {
            return new TransitBackend("real Vault", null, null, null, null, null, null,
                    "VAULT_ADDR and VAULT_TOKEN are not set; set them (e.g. to a `vault server -dev` or `bao server -dev`) to run this test against a real Vault or OpenBao");
        }
        VaultTls tls = null;
        if (addr.startsWith("https:")) {
            boolean skipVerify = "true".equalsIgnoreCase(env.getOrDefault("VAULT_SKIP_VERIFY", "").strip())
                    || "1".equals(env.get("VAULT_SKIP_VERIFY"));
            tls = skipVerify ? new VaultTls(null, null, null, true) : env.get("VAULT_CACERT") == null ? null
                    : new VaultTls(env.get("VAULT_CACERT"), null, "PEM", false);
        }
        return new TransitBackend("real Vault", addr.replaceAll("/+$", ""), token, blankToNull(env.get("VAULT_NAMESPACE")),
                blankToNull(env.get("SLUICE_TEST_VAULT_NAMESPACE")), tls, null, null);
    }

    Optional<String> skipReason() {
        return Optional.ofNullable(skipReason);
    }

    SSLContext ssl() {
        return VaultTrust.sslContext(tls);
    }

    VaultAdmin admin() {
        return new VaultAdmin(url, rootToken, namespace, ssl());
    }

    /** Enables Transit and AppRole, creates key {@code keyPrefix + "a"} and the least-privilege policy. Once. */
    synchronized void prepare() {
        if (prepared) {
            return;
        }
        VaultAdmin admin = admin();
        admin.enableTransit(MOUNT);
        admin.enableAppRole();
        admin.createKey(MOUNT, key("a"));
        admin.writePolicy(policyName, leastPrivilegePolicy(MOUNT, keyPrefix));
        prepared = true;
    }

    String key(String suffix) {
        return keyPrefix + suffix;
    }

    VaultKmsConfig config(VaultAuth auth) {
        return config(url, namespace, auth);
    }

    VaultKmsConfig config(String vaultUrl, String ns, VaultAuth auth) {
        return new VaultKmsConfig(vaultUrl, MOUNT, ns, auth, tls, Duration.ofSeconds(2), Duration.ofSeconds(5));
    }

    /**
     * The policy from docs/kms.md (the first {@code hcl} block), for this mount and these key names: what the docs
     * tell operators is what the tests run with.
     */
    static String leastPrivilegePolicy(String mount, String keyPrefix) {
        String docs;
        try {
            docs = Files.readString(Path.of("../docs/kms.md"));
        }
        catch (IOException e) {
            throw new UncheckedIOException("docs/kms.md is needed for its policy", e);
        }
        Matcher m = Pattern.compile("```hcl\\n(.*?)```", Pattern.DOTALL).matcher(docs);
        if (!m.find()) {
            throw new IllegalStateException("docs/kms.md has no hcl policy block");
        }
        return m.group(1).replace("\"transit/", "\"" + mount + "/").replace("kek-*", keyPrefix + "*");
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }

    @Override
    public void close() {
        if (standIn != null) {
            standIn.close();
        }
    }

    @Override
    public String toString() {
        return name.toLowerCase(Locale.ROOT);
    }
}
