package io.sluice.app.cli;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.config.ConfigException;
import io.sluice.config.ConfigLoader;
import io.sluice.proxy.config.ProxyConfigLoader;
import io.sluice.proxy.config.ProxyConfig;
import io.sluice.proxy.server.ProxyServer;
import io.sluice.testkit.JavaCommand;

import io.sluice.bench.targets.BenchTarget;
import io.sluice.bench.targets.BenchTargets;
import io.sluice.bench.targets.TargetCredentials;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code sluice proxy|bridge --config FILE --validate}, as CI runs it: a child JVM with the environment the shipped
 * examples need, the exit code and what it prints. A port taken by another process proves that nothing is bound.
 */
class ValidateModeTest {

    private static final Path EXAMPLES = Path.of("../../config/examples").toAbsolutePath().normalize();
    private static final Map<String, String> KAFKA = Map.of("KAFKA_BOOTSTRAP", "kafka.invalid:9092");

    @TempDir
    Path dir;

    @Test
    void theShippedProxyExamplesAreValid() throws Exception {
        for (String example : List.of("passthrough.yaml", "encryption-inprocess.yaml", "key-routing.yaml")) {
            Run run = sluice(KAFKA, "proxy", "--config", EXAMPLES.resolve(example).toString(), "--validate");
            assertThat(run.exit).as(example + ": " + run.err).isZero();
            // Logs share standard output (an example may warn, e.g. that the in-process KMS is for demos); the verdict ends it.
            assertThat(run.out.strip().lines().reduce((a, b) -> b)).as(example).hasValue("valid");
        }
    }

    @Test
    void everyBuiltInBenchmarkTargetIsValidWithTheFiltersOfThisBuild() throws Exception {
        // bench proxy, bench idle and sluice omb start these; a template the filters no longer accept would fail only there.
        for (String name : BenchTargets.builtInNames()) {
            BenchTarget target = BenchTargets.resolve(name);
            if (target.direct()) {
                continue;
            }
            Path config = Files.writeString(dir.resolve(name + ".yaml"), target.proxyConfigTemplate());
            Map<String, String> env = new HashMap<>(BenchTarget.proxyEnvironment("kafka.invalid:9092", "127.0.0.1:9192", 9190));
            // What the runners add for an authenticating target (the jwt target's verification secret).
            env.putAll(TargetCredentials.forTarget(target).proxyEnvironment());
            Run run = sluice(env, "proxy", "--config", config.toString(), "--validate");
            assertThat(run.exit).as(name + ": " + run.err).isZero();
            assertThat(run.out.strip().lines().reduce((a, b) -> b)).as(name).hasValue("valid");
        }
    }

    @Test
    void validatingBindsNothing() throws Exception {
        try (ServerSocket taken = new ServerSocket(0)) {
            // Start-up would fail to bind the bootstrap port; validation does not try.
            Run run = sluice(Map.of("KAFKA_BOOTSTRAP", "kafka.invalid:9092", "SLUICE_BOOTSTRAP", "127.0.0.1:" + taken.getLocalPort()),
                    "proxy", "--config", EXAMPLES.resolve("passthrough.yaml").toString(), "--validate");
            assertThat(run.exit).as(run.err).isZero();
        }
    }

    @Test
    void aBadFilterFieldIsNamedWithExitCode2() throws Exception {
        // Only the filter's own check catches this: the proxy's config validation does not know RecordEncryption's fields.
        Path config = Files.writeString(dir.resolve("proxy.yaml"), Files.readString(EXAMPLES.resolve("encryption-inprocess.yaml"))
                .replace("topics: [\"secure.*\"]", "topics: [\"secure.*\"]\n      formatVersion: 7"));

        Run run = sluice(KAFKA, "proxy", "--config", config.toString(), "--validate");

        assertThat(run.exit).isEqualTo(2);
        assertThat(run.out).doesNotContain("valid");
        assertThat(run.err).contains("invalid configuration", "filterDefinitions[0].config: formatVersion");
    }

    @Test
    void aMissingEnvironmentVariableIsNamedWithExitCode2() throws Exception {
        Run run = sluice(Map.of(), "proxy", "--config", EXAMPLES.resolve("passthrough.yaml").toString(), "--validate");

        assertThat(run.exit).isEqualTo(2);
        assertThat(run.err).contains("KAFKA_BOOTSTRAP");
    }

    @Test
    void theShippedBridgeExampleIsValidAndABadKeySourceIsNamed() throws Exception {
        Map<String, String> env = Map.of("KAFKA_BOOTSTRAP", "kafka.invalid:9092", "SLUICE_BRIDGE_TOPICS", "scores,news",
                // A JWKS URL is fetched when the first token arrives, never by validation: nothing listens there.
                "SLUICE_JWKS", "https://issuer.invalid/.well-known/jwks.json", "SLUICE_JWT_ISSUER", "https://issuer.invalid",
                "SLUICE_JWT_AUDIENCE", "sluice-bridge");
        Run valid = sluice(env, "bridge", "--config", EXAMPLES.resolve("bridge.yaml").toString(), "--validate");
        assertThat(valid.exit).as(valid.err).isZero();
        assertThat(valid.out.strip().lines().reduce((a, b) -> b)).hasValue("valid");

        Map<String, String> badKeys = new java.util.HashMap<>(env);
        badKeys.put("SLUICE_JWKS", dir.resolve("no-such-jwks.json").toString());
        Run invalid = sluice(badKeys, "bridge", "--config", EXAMPLES.resolve("bridge.yaml").toString(), "--validate");
        assertThat(invalid.exit).isEqualTo(2);
        assertThat(invalid.err).contains("auth.jwt.jwks");

        Path badField = Files.writeString(dir.resolve("bridge.yaml"), Files.readString(EXAMPLES.resolve("bridge.yaml")).replace("path: /ws", "path: ws"));
        Run bad = sluice(env, "bridge", "--config", badField.toString(), "--validate");
        assertThat(bad.exit).isEqualTo(2);
        assertThat(bad.err).contains("server.path");

        // A local schema file that does not parse is named as start-up would name it.
        Path schema = Files.writeString(dir.resolve("broken.avsc"), "{\"type\": \"record\", \"name\": ");
        Path withFormats = Files.writeString(dir.resolve("bridge-formats.yaml"), Files.readString(EXAMPLES.resolve("bridge.yaml"))
                + "\nformats:\n  - topics: scores\n    value: {type: avro, schemaFile: '" + schema + "'}\n");
        Run badSchema = sluice(env, "bridge", "--config", withFormats.toString(), "--validate");
        assertThat(badSchema.exit).isEqualTo(2);
        assertThat(badSchema.err).contains("formats[0].value");
    }

    /**
     * JwtAuth served without TLS on 0.0.0.0 is still valid (TLS may end in front of the proxy) but is warned about,
     * naming the virtual cluster and the gateway; the same filter on loopback, behind gateway TLS, or a gateway with no
     * authenticating filter is not.
     */
    @Test
    void anAuthenticatingFilterWithoutTlsOnAReachableAddressIsWarnedAbout() throws Exception {
        X509Bundle server = new CertificateBuilder().subject("CN=localhost").addSanDnsName("localhost").ecp256().setIsCertificateAuthority(true)
                .buildSelfSigned();
        Path crt = Files.writeString(dir.resolve("proxy.crt"), server.getCertificatePathPEM());
        Path key = Files.writeString(dir.resolve("proxy.key"), server.getPrivateKeyPEM());
        String yaml = """
                filterDefinitions:
                  - name: jwt
                    type: JwtAuth
                    config:
                      jwks: https://issuer.invalid/.well-known/jwks.json
                      issuer: https://issuer.invalid
                      audience: kafka
                virtualClusters:
                  - name: exposed
                    targetCluster: { bootstrapServers: "kafka.invalid:9092" }
                    gateways:
                      - name: plain
                        portIdentifiesNode: { bootstrapAddress: "0.0.0.0:19192", advertisedBrokerAddressPattern: proxy.example }
                      - name: encrypted
                        portIdentifiesNode: { bootstrapAddress: "0.0.0.0:19292", advertisedBrokerAddressPattern: proxy.example }
                        tls: { key: { privateKeyFile: "%s", certificateFile: "%s" } }
                      - name: local
                        portIdentifiesNode: { bootstrapAddress: "127.0.0.1:19392" }
                    filters: [jwt]
                  - name: open
                    targetCluster: { bootstrapServers: "kafka.invalid:9092" }
                    gateways:
                      - name: plain
                        portIdentifiesNode: { bootstrapAddress: "0.0.0.0:19492", advertisedBrokerAddressPattern: proxy.example }
                    filters: []
                """.formatted(key, crt);
        Path config = Files.writeString(dir.resolve("jwt-plain.yaml"), yaml);

        Run run = sluice(Map.of(), "proxy", "--config", config.toString(), "--validate");

        assertThat(run.exit).as(run.err).isZero();
        assertThat(run.out.strip().lines().reduce((a, b) -> b)).hasValue("valid");
        List<String> warnings = run.err.lines().filter(l -> l.contains("WARNING")).toList();
        assertThat(warnings).singleElement().asString()
                .contains("virtualClusters[0] 'exposed' gateways[0] 'plain'", "JwtAuth (filter 'jwt')", "without TLS on 0.0.0.0:19192",
                        "virtualClusters[0].gateways[0].tls");
        assertThat(run.err).doesNotContain("'encrypted'", "'local'", "'open'");
    }

    @Test
    void validatingAVaultEncryptionConfigDoesNotLogInToVault() throws Exception {
        try (ServerSocket vault = new ServerSocket(0)) {
            String yaml = ConfigLoader.read(EXAMPLES.resolve("encryption.yaml"));
            ProxyConfig config = ProxyConfigLoader.parse(yaml, Map.of("KAFKA_BOOTSTRAP", "kafka.invalid:9092",
                    "VAULT_ADDR", "http://127.0.0.1:" + vault.getLocalPort(), "VAULT_TOKEN", "not-a-real-token"));

            ProxyServer.validate(config);

            // Starting the filter logs in at once; validation must not. Give a login the time it would take.
            vault.setSoTimeout((int) Duration.ofSeconds(2).toMillis());
            assertThatThrownBy(vault::accept).as("a connection reached the fake Vault").isInstanceOf(SocketTimeoutException.class);

            ProxyConfig bad = ProxyConfigLoader.parse(yaml, Map.of("KAFKA_BOOTSTRAP", "kafka.invalid:9092", "VAULT_ADDR", "ftp://vault", "VAULT_TOKEN", "t"));
            assertThatThrownBy(() -> ProxyServer.validate(bad)).isInstanceOf(ConfigException.class)
                    .satisfies(e -> assertThat(((ConfigException) e).problems()).singleElement().asString().startsWith("filterDefinitions[0].config: vaultUrl"));
        }
    }

    private record Run(int exit, String out, String err) {
    }

    /** bin/sluice's JVM: {@link Main} in a child process with only {@code env} added to a clean environment. */
    private Run sluice(Map<String, String> env, String... args) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(JavaCommand.of(List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                Main.class.getName(), List.of(args)));
        builder.environment().keySet().removeIf(name -> name.startsWith("SLUICE_") || name.startsWith("KAFKA_") || name.startsWith("VAULT_"));
        builder.environment().putAll(env);
        Path out = dir.resolve("out-" + System.nanoTime());
        Path err = dir.resolve("err-" + System.nanoTime());
        builder.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process process = builder.start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("finished").isTrue();
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }
}
