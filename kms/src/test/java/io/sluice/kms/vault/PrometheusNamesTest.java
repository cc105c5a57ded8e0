package io.sluice.kms.vault;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.kms.DataKey;
import io.sluice.kms.Kms;
import io.sluice.kms.WrappedKey;
import io.sluice.kms.cache.KeyCache;
import io.sluice.kms.cache.KeyCacheConfig;
import io.sluice.kms.cache.RetryPolicy;
import io.sluice.testkit.TcpRelay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * docs/kms.md lists the names users scrape; this drives every KMS meter (calls, retries, both caches, Vault
 * authentication) through a real Prometheus registry and compares its metric families with that list, both ways.
 */
class PrometheusNamesTest {

    @Test
    void theDocumentedNamesAreTheScrapedOnes() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try (TransitBackend backend = TransitBackend.standIn()) {
            backend.prepare();
            URI uri = URI.create(backend.url);
            try (TcpRelay relay = new TcpRelay(uri.getHost(), uri.getPort())) {
                String relayed = uri.getScheme() + "://" + uri.getHost() + ":" + relay.port();
                VaultKmsConfig config = backend.config(relayed, backend.namespace, new VaultAuth(backend.rootToken, null, null, null));
                try (Kms kms = new VaultKmsService(Map.<String, String>of()::get).create(config, registry);
                     KeyCache cache = KeyCache.create(kms, new KeyCacheConfig(null, null,
                             new RetryPolicy(2, Duration.ofMillis(10), Duration.ofMillis(10), Duration.ofSeconds(2)), null), registry, timer)) {
                    DataKey live = cache.encryptionKey(backend.key("a"), 1).toCompletableFuture().join();
                    cache.decryptionKey(live.wrapped()).toCompletableFuture().join();
                    WrappedKey unknown = new WrappedKey(backend.key("missing"), live.wrapped().ciphertext());
                    assertThatThrownBy(() -> cache.decryptionKey(unknown).toCompletableFuture().join()).isInstanceOf(CompletionException.class);
                    WrappedKey other = kms.generateDataKey(live.kek()).toCompletableFuture().join().wrapped();
                    relay.stop();
                    assertThatThrownBy(() -> cache.decryptionKey(other).toCompletableFuture().join()).isInstanceOf(CompletionException.class);
                }
            }
        } finally {
            timer.shutdownNow();
        }

        assertThat(scrapedFamilies(registry.scrape())).isEqualTo(documentedNames());
        registry.close();
    }

    /** Sample names of the sluice_kms families in an exposition. */
    private static Set<String> scrapedFamilies(String exposition) {
        Set<String> names = new TreeSet<>();
        for (String line : exposition.split("\n")) {
            if (line.startsWith("sluice_kms_")) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }

    /** Every {@code sluice_kms_...} name in backticks in docs/kms.md's Metrics section. */
    private static Set<String> documentedNames() throws IOException {
        String docs = Files.readString(Path.of("../docs/kms.md"));
        int start = docs.indexOf("\n## Metrics");
        String section = docs.substring(start, docs.indexOf("\n## ", start + 1));
        Set<String> names = new TreeSet<>();
        Matcher m = Pattern.compile("`(sluice_kms_[a-z_]+)").matcher(section);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }
}
