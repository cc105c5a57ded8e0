package io.sluice.bench.scenario;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import io.sluice.kms.vault.standin.VaultTransitStandIn;

/**
 * The Vault Transit API an encrypting proxy's RecordEncryption calls in a scenario: a real Vault or OpenBao when
 * {@code VAULT_ADDR} and {@code VAULT_TOKEN} are set (as the seed ran, with Vault in the cluster), else the in-process
 * stand-in, which speaks the same HTTP API, so that every KMS call the proxy makes is a real HTTP round trip either way.
 * The proxy gets the token through its environment ({@code auth.tokenEnv}), never in its configuration file.
 */
public final class ScenarioKms implements AutoCloseable {

    public static final String VAULT_ADDR = "VAULT_ADDR";
    public static final String VAULT_TOKEN = "VAULT_TOKEN";
    public static final String VAULT_TRANSIT_MOUNT = "VAULT_TRANSIT_MOUNT";
    /** The variable the proxy reads its token from. */
    public static final String PROXY_TOKEN_VARIABLE = "SLUICE_BENCH_VAULT_TOKEN";

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String url;
    private final String token;
    private final String mount;
    private final VaultTransitStandIn standIn;

    private ScenarioKms(String url, String token, String mount, VaultTransitStandIn standIn) {
        this.url = url.replaceAll("/+$", "");
        this.token = token;
        this.mount = mount;
        this.standIn = standIn;
    }

    /**
     * @throws IllegalArgumentException when {@code VAULT_ADDR} is set without {@code VAULT_TOKEN}
     */
    public static ScenarioKms from(Map<String, String> env) throws IOException {
        String address = env.get(VAULT_ADDR);
        if (address == null || address.isBlank()) {
            VaultTransitStandIn standIn = VaultTransitStandIn.start();
            return new ScenarioKms(standIn.url(), standIn.rootToken(), "transit", standIn);
        }
        String token = env.get(VAULT_TOKEN);
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("VAULT_ADDR is set but VAULT_TOKEN is not: give a token that may create Transit keys and use them"
                    + " (datakey, decrypt), or unset VAULT_ADDR to use the in-process Vault Transit stand-in");
        }
        return new ScenarioKms(address, token, env.getOrDefault(VAULT_TRANSIT_MOUNT, "transit"), null);
    }

    /** Creates the Transit key if it does not exist (Vault answers 204 either way). */
    public void ensureKey(String name) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url + "/v1/" + mount + "/keys/" + name))
                .header("X-Vault-Token", token)
                .timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IOException("creating Transit key " + name + " at " + url + "/v1/" + mount + " answered " + response.statusCode() + ": " + response.body());
        }
    }

    /** The RecordEncryption filter definition for every topic, with one KEK, calling this Vault. */
    public String filterDefinition(String filterName, String kek) {
        return """
                filterDefinitions:
                  - name: %s
                    type: RecordEncryption
                    config:
                      topics: ["*"]
                      kek: %s
                      kms: VaultKmsService
                      kmsConfig:
                        vaultUrl: "%s"
                        mount: "%s"
                        auth:
                          tokenEnv: %s
                defaultFilters: [%s]
                """.formatted(filterName, kek, url, mount, PROXY_TOKEN_VARIABLE, filterName);
    }

    /** What the proxy's environment needs for {@link #filterDefinition}. */
    public Map<String, String> proxyEnvironment() {
        return Map.of(PROXY_TOKEN_VARIABLE, token);
    }

    public String description() {
        return standIn != null ? "the in-process Vault Transit stand-in at " + url + " (real HTTP; set VAULT_ADDR and VAULT_TOKEN for a real Vault)"
                : "Vault Transit at " + url + " (mount " + mount + ")";
    }

    /** The KMS's own count of the calls it served, when it is the stand-in (a real Vault does not count by route). */
    public Optional<KmsCalls> servedCalls() {
        return standIn == null ? Optional.empty() : Optional.of(new KmsCalls(standIn.requests("datakey"), standIn.requests("decrypt")));
    }

    @Override
    public void close() {
        if (standIn != null) {
            standIn.close();
        }
    }
}
