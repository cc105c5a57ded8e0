package io.sluice.bench.scenario;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import io.sluice.kms.vault.standin.VaultAdmin;
import io.sluice.kms.vault.standin.VaultTransitStandIn;
import io.sluice.testkit.MotoServer;
import io.sluice.testkit.PythonVenv;

/**
 * The KMS an encrypting proxy's RecordEncryption calls in a scenario, over its real API either way, so that every KMS
 * call the proxy makes is a real HTTP round trip:
 *
 * <ul>
 *   <li>{@code vault} (default): a real Vault or OpenBao when {@code VAULT_ADDR} and {@code VAULT_TOKEN} are set (as the
 *       seed ran, with Vault in the cluster), else the in-process Transit stand-in. The proxy gets the token through its
 *       environment ({@code auth.tokenEnv}), never in its configuration file.</li>
 *   <li>{@code aws}: AWS KMS itself when {@code SLUICE_AWS_KMS_KEY_ID} names a key (the proxy's default credentials
 *       chain and {@code AWS_REGION} from the environment), else moto in server mode ({@link MotoServer}, installed on
 *       first use), with an alias per KEK and moto's credentials in the proxy's environment.</li>
 * </ul>
 */
public final class ScenarioKms implements AutoCloseable {

    public static final String VAULT_ADDR = "VAULT_ADDR";
    public static final String VAULT_TOKEN = "VAULT_TOKEN";
    public static final String VAULT_TRANSIT_MOUNT = "VAULT_TRANSIT_MOUNT";
    public static final String AWS_KEY_ID = "SLUICE_AWS_KMS_KEY_ID";
    /** The variable the proxy reads its Vault token from. */
    public static final String PROXY_TOKEN_VARIABLE = "SLUICE_BENCH_VAULT_TOKEN";
    /** The KMS kinds {@link #from(String, Map)} knows. */
    public static final List<String> KINDS = List.of("vault", "aws");

    private final String kind;
    private final String url;
    private final String token;
    private final String mount;
    private final VaultTransitStandIn standIn;
    private final MotoServer moto;
    private final String awsKey;
    private final String awsRegion;

    private ScenarioKms(String kind, String url, String token, String mount, VaultTransitStandIn standIn, MotoServer moto, String awsKey,
                        String awsRegion) {
        this.kind = kind;
        this.url = url == null ? null : url.replaceAll("/+$", "");
        this.token = token;
        this.mount = mount;
        this.standIn = standIn;
        this.moto = moto;
        this.awsKey = awsKey;
        this.awsRegion = awsRegion;
    }

    /** Vault, as {@link #from(String, Map)} with {@code vault}. */
    public static ScenarioKms from(Map<String, String> env) throws IOException {
        return from("vault", env);
    }

    /**
     * @param kind {@code vault} or {@code aws}
     * @throws IllegalArgumentException for another kind, when {@code VAULT_ADDR} is set without {@code VAULT_TOKEN},
     *         or {@code SLUICE_AWS_KMS_KEY_ID} without a region, or when moto cannot be installed (no Python)
     */
    public static ScenarioKms from(String kind, Map<String, String> env) throws IOException {
        switch (kind.toLowerCase(Locale.ROOT)) {
            case "vault" -> {
                String address = env.get(VAULT_ADDR);
                if (address == null || address.isBlank()) {
                    VaultTransitStandIn standIn = VaultTransitStandIn.start();
                    return new ScenarioKms("vault", standIn.url(), standIn.rootToken(), "transit", standIn, null, null, null);
                }
                String token = env.get(VAULT_TOKEN);
                if (token == null || token.isBlank()) {
                    throw new IllegalArgumentException("VAULT_ADDR is set but VAULT_TOKEN is not: give a token that may create Transit keys and use them"
                            + " (datakey, decrypt), or unset VAULT_ADDR to use the in-process Vault Transit stand-in");
                }
                return new ScenarioKms("vault", address, token, env.getOrDefault(VAULT_TRANSIT_MOUNT, "transit"), null, null, null, null);
            }
            case "aws" -> {
                String key = env.get(AWS_KEY_ID);
                if (key != null && !key.isBlank()) {
                    String region = env.getOrDefault("AWS_REGION", env.get("AWS_DEFAULT_REGION"));
                    if (region == null || region.isBlank()) {
                        throw new IllegalArgumentException(AWS_KEY_ID + " is set but AWS_REGION is not: give the key's region");
                    }
                    return new ScenarioKms("aws", null, null, null, null, null, key.strip(), region.strip());
                }
                PythonVenv.Prepared venv = MotoServer.venv();
                if (venv.venv() == null) {
                    throw new IllegalArgumentException("--kms aws without " + AWS_KEY_ID + " runs moto, which cannot be installed: " + venv.unavailable());
                }
                return new ScenarioKms("aws", null, null, null, null, MotoServer.start(venv.venv()), null, MotoServer.REGION);
            }
            default -> throw new IllegalArgumentException("--kms: '" + kind + "' is not one of " + KINDS);
        }
    }

    /** The KEK a filter names for {@code name}: the Transit key, a moto alias, or the given AWS key whatever the name. */
    public String kek(String name) {
        if (!kind.equals("aws")) {
            return name;
        }
        return moto != null ? "alias/" + name : awsKey;
    }

    /** Creates the KEK if it does not exist (Vault answers 204 either way); the given AWS key must exist already. */
    public void ensureKey(String name) throws IOException {
        if (kind.equals("vault")) {
            try {
                new VaultAdmin(url, token, null, javax.net.ssl.SSLContext.getDefault()).createKey(mount, name);
            }
            catch (java.security.NoSuchAlgorithmException | IllegalStateException e) {
                throw new IOException("creating Transit key " + name + " at " + url + "/v1/" + mount + ": " + e.getMessage(), e);
            }
        }
        else if (moto != null) {
            moto.createKey(kek(name));
        }
    }

    /** The RecordEncryption filter definition for every topic, with one KEK, calling this KMS. */
    public String filterDefinition(String filterName, String kek) {
        String kms = kind.equals("vault") ? """
                      kms: VaultKmsService
                      kmsConfig:
                        vaultUrl: "%s"
                        mount: "%s"
                        auth:
                          tokenEnv: %s
                """.formatted(url, mount, PROXY_TOKEN_VARIABLE)
                : """
                      kms: AwsKmsService
                      kmsConfig:
                        region: "%s"
                """.formatted(awsRegion) + (moto == null ? "" : "        endpointOverride: \"" + moto.endpoint() + "\"\n");
        return """
                filterDefinitions:
                  - name: %s
                    type: RecordEncryption
                    config:
                      topics: ["*"]
                      kek: "%s"
                %sdefaultFilters: [%s]
                """.formatted(filterName, kek(kek), kms, filterName);
    }

    /** What the proxy's environment needs for {@link #filterDefinition}: the Vault token, or moto's credentials for the default chain. */
    public Map<String, String> proxyEnvironment() {
        if (kind.equals("vault")) {
            return Map.of(PROXY_TOKEN_VARIABLE, token);
        }
        return moto == null ? Map.of() : Map.of("AWS_ACCESS_KEY_ID", MotoServer.ACCESS_KEY_ID, "AWS_SECRET_ACCESS_KEY", MotoServer.SECRET_ACCESS_KEY);
    }

    public String description() {
        if (kind.equals("aws")) {
            return moto != null ? "AWS KMS API of moto at " + moto.endpoint() + " (set " + AWS_KEY_ID + " and AWS_REGION for AWS itself)"
                    : "AWS KMS in " + awsRegion + ", key " + awsKey;
        }
        return standIn != null ? "the in-process Vault Transit stand-in at " + url + " (real HTTP; set VAULT_ADDR and VAULT_TOKEN for a real Vault)"
                : "Vault Transit at " + url + " (mount " + mount + ")";
    }

    /**
     * The KMS's own count of the calls it served, when it counts them: the Vault stand-in by route, moto by its request
     * recorder; a real Vault or AWS does not tell.
     */
    public Optional<KmsCalls> servedCalls() {
        if (standIn != null) {
            return Optional.of(new KmsCalls(standIn.requests("datakey"), standIn.requests("decrypt")));
        }
        if (moto != null) {
            try {
                return Optional.of(new KmsCalls(moto.served("GenerateDataKey"), moto.served("Decrypt")));
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return Optional.empty();
    }

    @Override
    public void close() {
        if (standIn != null) {
            standIn.close();
        }
        if (moto != null) {
            moto.close();
        }
    }

    @Override
    public String toString() {
        return description();
    }
}
