package io.sluice.kms.vault;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import javax.crypto.SecretKey;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.kms.DataKey;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsException;
import io.sluice.kms.KmsForbiddenException;
import io.sluice.kms.KmsUnavailableException;
import io.sluice.kms.UnknownKeyException;
import io.sluice.kms.WrappedKey;
import io.sluice.kms.cache.DataKeyLimits;
import io.sluice.kms.cache.KeyCache;
import io.sluice.kms.cache.KeyCacheConfig;
import io.sluice.kms.cache.RetryPolicy;
import io.sluice.kms.metrics.MeteredKms;
import io.sluice.kms.vault.standin.VaultAdmin;
import io.sluice.testkit.TcpRelay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The Vault Transit KMS over real HTTP: against the in-process stand-in always, and against a real Vault or OpenBao
 * when {@code VAULT_ADDR} and {@code VAULT_TOKEN} are set (see {@link TransitBackend}); skipped there otherwise, with
 * the reason printed.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("backends")
class VaultTransitTest {

    private static final AtomicBoolean SKIP_REPORTED = new AtomicBoolean();

    @Parameter
    TransitBackend backend;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    static Stream<TransitBackend> backends() {
        return Stream.of(TransitBackend.standIn(), TransitBackend.realVault(System.getenv()));
    }

    @AfterParameterizedClassInvocation
    static void stopBackend(TransitBackend backend) {
        backend.close();
    }

    @BeforeEach
    void prepare() {
        backend.skipReason().ifPresent(reason -> {
            if (SKIP_REPORTED.compareAndSet(false, true)) {
                System.out.println("VaultTransitTest against a real Vault skipped: " + reason);
            }
        });
        assumeTrue(backend.skipReason().isEmpty(), () -> backend.skipReason().orElse(""));
        backend.prepare();
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    // ---- helpers ----

    private Kms kms(VaultKmsConfig config) {
        Kms kms = new VaultKmsService(Map.of("SLUICE_TEST_TOKEN", leastPrivilegeToken())::get).create(config, registry);
        closeables.add(kms);
        return kms;
    }

    private Kms kmsWithToken(String token) {
        return kms(backend.config(new VaultAuth(token, null, null, null)));
    }

    private String leastPrivilegeToken() {
        return backend.admin().createToken(Duration.ofHours(1), List.of(backend.policyName));
    }

    private AppRole appRole(Duration tokenTtl, Duration tokenMaxTtl, Path dir) throws Exception {
        String role = backend.policyName + "-" + tokenTtl.toSeconds() + "-" + tokenMaxTtl.toSeconds();
        VaultAdmin admin = backend.admin();
        admin.createRole(role, tokenTtl, tokenMaxTtl, backend.policyName);
        Path secretIdFile = Files.writeString(dir.resolve("secret-id"), admin.newSecretId(role) + "\n");
        return new AppRole(admin.roleId(role), null, secretIdFile.toString(), null);
    }

    private double authEvents(String event, String outcome) {
        Counter counter = registry.find(VaultSession.AUTH_EVENTS).tag("event", event).tag("outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }

    private static <T> T join(CompletionStage<T> stage) {
        return stage.toCompletableFuture().join();
    }

    private static Throwable failure(CompletionStage<?> stage) {
        try {
            stage.toCompletableFuture().join();
        }
        catch (CompletionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected a failure");
    }

    private static void assertWorks(Kms kms, String key) {
        KekRef kek = join(kms.resolveKek(key));
        DataKey dataKey = join(kms.generateDataKey(kek));
        assertThat(join(kms.unwrap(dataKey.wrapped())).getEncoded()).isEqualTo(dataKey.key().getEncoded());
    }

    // ---- tests ----

    @Test
    void tokenAuthGeneratesAndUnwrapsDataKeys() {
        Kms kms = kmsWithToken(leastPrivilegeToken());
        KekRef kek = join(kms.resolveKek(backend.key("a")));
        DataKey dataKey = join(kms.generateDataKey(kek));
        SecretKey unwrapped = join(kms.unwrap(WrappedKey.parse(dataKey.wrapped().toBytes())));

        assertThat(kek.name()).isEqualTo(backend.key("a"));
        assertThat(kek.version()).isGreaterThanOrEqualTo(1);
        assertThat(dataKey.key().getEncoded()).hasSize(32);
        assertThat(dataKey.wrapped().ciphertextText()).startsWith("vault:v" + kek.version() + ":");
        assertThat(dataKey.kek()).isEqualTo(kek);
        assertThat(unwrapped.getEncoded()).isEqualTo(dataKey.key().getEncoded());
        assertThat(registry.get(MeteredKms.CALLS).tag("provider", "vault").tag("operation", "unwrap").tag("outcome", "success")
                .timer().count()).isEqualTo(1);
    }

    @Test
    void tokenFromTheEnvironment() {
        assertWorks(kms(backend.config(new VaultAuth(null, null, "SLUICE_TEST_TOKEN", null))), backend.key("a"));
    }

    @Test
    void rotationWrapsNewKeysWithTheNewVersionAndOldOnesStillUnwrap() {
        String key = backend.key("rotating");
        backend.admin().createKey(TransitBackend.MOUNT, key);
        Kms kms = kmsWithToken(leastPrivilegeToken());
        DataKey before = join(kms.generateDataKey(join(kms.resolveKek(key))));

        backend.admin().rotate(TransitBackend.MOUNT, key);

        KekRef rotated = join(kms.resolveKek(key));
        DataKey after = join(kms.generateDataKey(rotated));
        assertThat(rotated.version()).isEqualTo(before.kek().version() + 1);
        assertThat(after.wrapped().ciphertextText()).startsWith("vault:v" + rotated.version() + ":");
        assertThat(after.kek().version()).isEqualTo(rotated.version());
        assertThat(join(kms.unwrap(before.wrapped())).getEncoded()).isEqualTo(before.key().getEncoded());
        assertThat(join(kms.unwrap(after.wrapped())).getEncoded()).isEqualTo(after.key().getEncoded());
    }

    @Test
    void unknownKeysAreUnknown() {
        Kms kms = kmsWithToken(backend.rootToken);
        String missing = backend.key("missing");
        assertThat(failure(kms.resolveKek(missing))).isInstanceOf(UnknownKeyException.class);
        assertThat(failure(kms.generateDataKey(new KekRef(missing, 1)))).isInstanceOf(UnknownKeyException.class);
        DataKey real = join(kms.generateDataKey(new KekRef(backend.key("a"), 1)));
        assertThat(failure(kms.unwrap(new WrappedKey(missing, real.wrapped().ciphertext())))).isInstanceOf(UnknownKeyException.class);
        assertThat(failure(kms.resolveKek("../../sys/seal"))).isInstanceOf(UnknownKeyException.class);
    }

    @Test
    void aCiphertextThatIsNotTransitsIsAPlainKmsError() {
        Kms kms = kmsWithToken(leastPrivilegeToken());
        DataKey real = join(kms.generateDataKey(new KekRef(backend.key("a"), 1)));
        // Well formed, so Vault itself has to refuse it: the GCM tag does not match.
        String forged = "vault:v" + real.kek().version() + ":" + java.util.Base64.getEncoder().encodeToString(new byte[60]);
        Throwable badTag = failure(kms.unwrap(new WrappedKey(backend.key("a"), forged.getBytes(java.nio.charset.StandardCharsets.US_ASCII))));
        assertThat(badTag).isExactlyInstanceOf(KmsException.class).hasMessageContaining("HTTP 400");
        Throwable notTransit = failure(kms.unwrap(new WrappedKey(backend.key("a"), new byte[]{ 1, 2 })));
        assertThat(notTransit).isExactlyInstanceOf(KmsException.class).hasMessageContaining("not a Vault Transit ciphertext");
    }

    @Test
    void badTokenIsForbidden() {
        Kms kms = kmsWithToken("hvs.not-a-token");
        assertThat(failure(kms.resolveKek(backend.key("a")))).isInstanceOf(KmsForbiddenException.class);
        assertThat(failure(kms.generateDataKey(new KekRef(backend.key("a"), 1)))).isInstanceOf(KmsForbiddenException.class)
                .hasMessageContaining("permission denied").hasMessageNotContaining("not-a-token");
        assertThat(registry.get(MeteredKms.CALLS).tag("outcome", "forbidden").timers()).isNotEmpty();
    }

    @Test
    void leastPrivilegePolicyAllowsOnlyItsKeys() {
        String outside = "outside-" + backend.keyPrefix;
        backend.admin().createKey(TransitBackend.MOUNT, outside);
        Kms kms = kmsWithToken(leastPrivilegeToken());
        assertWorks(kms, backend.key("a"));
        assertThat(failure(kms.resolveKek(outside))).isInstanceOf(KmsForbiddenException.class);
        assertThat(failure(kms.generateDataKey(new KekRef(outside, 1)))).isInstanceOf(KmsForbiddenException.class);
    }

    @Test
    void appRoleLogsInAndRenewsItsToken(@TempDir Path dir) throws Exception {
        AppRole appRole = appRole(Duration.ofSeconds(3), Duration.ofMinutes(5), dir);
        Kms kms = kms(backend.config(new VaultAuth(null, null, null, appRole)));
        assertWorks(kms, backend.key("a"));

        // Renewed at two thirds of 3 s: two renewals mean the first token's TTL has passed.
        await().atMost(Duration.ofSeconds(30)).until(() -> authEvents("renewal", "success") >= 2);

        assertWorks(kms, backend.key("a"));
    }

    @Test
    void appRoleLogsInAgainWhenTheTokenReachesItsMaxTtl(@TempDir Path dir) throws Exception {
        AppRole appRole = appRole(Duration.ofSeconds(2), Duration.ofSeconds(4), dir);
        Kms kms = kms(backend.config(new VaultAuth(null, null, null, appRole)));
        assertWorks(kms, backend.key("a"));

        await().atMost(Duration.ofSeconds(30)).until(() -> authEvents("login", "success") >= 3);

        assertWorks(kms, backend.key("a"));
    }

    @Test
    void appRoleWithAWrongSecretIsForbidden(@TempDir Path dir) throws Exception {
        AppRole good = appRole(Duration.ofMinutes(5), Duration.ofMinutes(10), dir);
        AppRole wrong = new AppRole(good.roleId(), "not-the-secret-id", null, null);
        Kms kms = kms(backend.config(new VaultAuth(null, null, null, wrong)));
        Throwable failure = failure(kms.resolveKek(backend.key("a")));
        assertThat(failure).isInstanceOf(KmsForbiddenException.class).hasMessageNotContaining("not-the-secret-id");
        assertThat(authEvents("login", "failure")).isGreaterThanOrEqualTo(1);
    }

    @Test
    void renewableStaticTokenIsRenewed() {
        // A static token cannot be replaced, so its TTL leaves room for a late renewal on a busy machine.
        String token = backend.admin().createToken(Duration.ofSeconds(6), List.of(backend.policyName));
        Kms kms = kmsWithToken(token);
        assertWorks(kms, backend.key("a"));

        await().atMost(Duration.ofSeconds(60)).until(() -> authEvents("renewal", "success") >= 2);

        assertWorks(kms, backend.key("a"));
        assertThat(authEvents("lookup", "success")).isEqualTo(1);
    }

    @Test
    void tokenFileIsReadAgainWhenVaultRefusesTheToken(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("token"), "hvs.stale-token\n");
        Kms kms = kms(backend.config(new VaultAuth(null, file.toString(), null, null)));
        assertThat(failure(kms.resolveKek(backend.key("a")))).isInstanceOf(KmsForbiddenException.class);

        Files.writeString(file, leastPrivilegeToken() + "\n");

        assertWorks(kms, backend.key("a"));
    }

    @Test
    void namespaceIsSentOnEveryCall() {
        assumeTrue(backend.otherNamespace != null, "SLUICE_TEST_VAULT_NAMESPACE is not set: no namespace to test with");
        VaultAdmin inNamespace = backend.admin().inNamespace(backend.otherNamespace, backend.ssl());
        inNamespace.enableTransit(TransitBackend.MOUNT);
        String key = backend.key("namespaced");
        inNamespace.createKey(TransitBackend.MOUNT, key);

        Kms namespaced = kms(backend.config(backend.url, backend.otherNamespace, new VaultAuth(backend.rootToken, null, null, null)));
        Kms outside = kmsWithToken(backend.rootToken);

        assertWorks(namespaced, key);
        assertThat(failure(outside.resolveKek(key))).isInstanceOf(UnknownKeyException.class);
        assertThat(failure(namespaced.resolveKek(backend.key("a")))).isInstanceOf(UnknownKeyException.class);
    }

    @Test
    void unreachableVaultIsUnavailableCachedKeysServeAndItRecoversByItself() throws Exception {
        URI uri = URI.create(backend.url);
        try (TcpRelay relay = new TcpRelay(uri.getHost(), uri.getPort())) {
            String relayed = uri.getScheme() + "://" + uri.getHost() + ":" + relay.port();
            Kms kms = kms(backend.config(relayed, backend.namespace, new VaultAuth(leastPrivilegeToken(), null, null, null)));
            ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
            closeables.add(timer::shutdownNow);
            KeyCache cache = KeyCache.create(kms, new KeyCacheConfig(new DataKeyLimits(1000L, null), null,
                    new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofSeconds(2)), null), registry, timer);
            closeables.add(0, cache);
            DataKey live = join(cache.encryptionKey(backend.key("a"), 1));
            WrappedKey other = join(kms.generateDataKey(live.kek())).wrapped();

            relay.stop();

            assertThat(failure(kms.resolveKek(backend.key("a")))).isInstanceOf(KmsUnavailableException.class);
            assertThat(failure(cache.decryptionKey(other))).isInstanceOf(KmsUnavailableException.class);
            assertThat(join(cache.encryptionKey(backend.key("a"), 1))).isSameAs(live);
            assertThat(join(cache.decryptionKey(live.wrapped())).getEncoded()).isEqualTo(live.key().getEncoded());

            relay.start();

            await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .until(() -> join(cache.decryptionKey(other)) != null);
            assertWorks(kms, backend.key("a"));
        }
    }

    @Test
    void sealedVaultIsUnavailableUntilUnsealed() {
        assumeTrue(backend.standIn != null, "only the stand-in can be sealed by a test");
        Kms kms = kmsWithToken(leastPrivilegeToken());
        assertWorks(kms, backend.key("a"));
        backend.standIn.sealed(true);
        try {
            assertThat(failure(kms.resolveKek(backend.key("a")))).isInstanceOf(KmsUnavailableException.class).hasMessageContaining("sealed");
            assertThat(failure(kms.generateDataKey(new KekRef(backend.key("a"), 1)))).isInstanceOf(KmsUnavailableException.class);
        }
        finally {
            backend.standIn.sealed(false);
        }
        assertWorks(kms, backend.key("a"));
        assertThat(registry.get(MeteredKms.CALLS).tag("outcome", "unavailable").timers()).hasSize(2);
    }

    @Test
    void stoppedVaultComesBackOnTheSamePort() throws Exception {
        assumeTrue(backend.standIn != null, "only the stand-in can be stopped by a test");
        Kms kms = kmsWithToken(leastPrivilegeToken());
        assertWorks(kms, backend.key("a"));
        backend.standIn.stop();
        try {
            assertThat(failure(kms.resolveKek(backend.key("a")))).isInstanceOf(KmsUnavailableException.class);
        }
        finally {
            backend.standIn.restart();
        }
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> assertWorks(kms, backend.key("a")));
    }
}
