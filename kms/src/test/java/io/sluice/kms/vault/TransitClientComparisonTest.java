package io.sluice.kms.vault;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.net.ssl.SSLContext;

import org.junit.jupiter.api.Test;

import io.github.jopenlibs.vault.Vault;
import io.github.jopenlibs.vault.VaultConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.WrappedKey;
import io.sluice.kms.vault.standin.VaultAdmin;
import io.sluice.kms.vault.standin.VaultTransitStandIn;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Transit decrypt throughput against the stand-in: the Vault driver (blocking, in a thread pool) against this
 * module's asynchronous client, with Vault answering at once and with Vault 20 ms away. A measurement, not a check:
 * it runs only when asked, and its numbers are in docs/kms.md.
 *
 * <pre>mvn -B -o -pl kms test -Dtest=TransitClientComparisonTest -Dsluice.kms.compare=true</pre>
 */
class TransitClientComparisonTest {

    private static final int CALLS = 2_000;
    private static final int ROUNDS = 5;
    private static final String KEY = "kek-bench";
    private static final AtomicInteger FAILURES = new AtomicInteger();

    @Test
    void decryptThroughput() throws Exception {
        assumeTrue(Boolean.getBoolean("sluice.kms.compare"), "a measurement: run with -Dsluice.kms.compare=true");
        try (VaultTransitStandIn standIn = VaultTransitStandIn.start()) {
            new VaultAdmin(standIn.url(), standIn.rootToken(), null, SSLContext.getDefault()).createKey("transit", KEY);
            VaultKmsConfig config = new VaultKmsConfig(standIn.url(), null, null, new VaultAuth(standIn.rootToken(), null, null, null), null, null, null);
            try (Kms kms = new VaultKmsService().create(config, new SimpleMeterRegistry())) {
                List<WrappedKey> wrapped = new ArrayList<>();
                for (int i = 0; i < 64; i++) {
                    wrapped.add(kms.generateDataKey(new KekRef(KEY, 1)).toCompletableFuture().join().wrapped());
                }
                Vault perCall = driver(standIn, false);
                Vault shared = driver(standIn, true);

                Map<String, Run> local = new LinkedHashMap<>();
                local.put("vault-java-driver, default config (new HttpClient per call), 16 threads", () -> blocking(perCall, wrapped, 16));
                local.put("vault-java-driver, one shared HttpClient, 16 threads", () -> blocking(shared, wrapped, 16));
                local.put("VaultKms.unwrap (HttpClient.sendAsync), 16 in flight", () -> async(kms, wrapped, 16));
                measure("Vault answering at once", local);

                standIn.latency(Duration.ofMillis(20));
                Map<String, Run> remote = new LinkedHashMap<>();
                remote.put("vault-java-driver, one shared HttpClient, 16 threads", () -> blocking(shared, wrapped, 16));
                remote.put("vault-java-driver, one shared HttpClient, 64 threads", () -> blocking(shared, wrapped, 64));
                remote.put("VaultKms.unwrap (HttpClient.sendAsync), 64 in flight", () -> async(kms, wrapped, 64));
                measure("Vault answering after 20 ms", remote);
            }
        }
    }

    private interface Run {
        double callsPerSecond() throws Exception;
    }

    private static void measure(String scenario, Map<String, Run> variants) throws Exception {
        System.out.printf("Transit decrypt, %s: %d calls per round, median of %d interleaved rounds, %d cores%n",
                scenario, CALLS, ROUNDS, Runtime.getRuntime().availableProcessors());
        Map<String, double[]> results = new LinkedHashMap<>();
        for (Map.Entry<String, Run> variant : variants.entrySet()) {
            variant.getValue().callsPerSecond(); // warm-up
            results.put(variant.getKey(), new double[ROUNDS]);
        }
        FAILURES.set(0);
        // Interleaved, so that load from elsewhere on the machine hits every variant alike.
        for (int round = 0; round < ROUNDS; round++) {
            for (Map.Entry<String, Run> variant : variants.entrySet()) {
                results.get(variant.getKey())[round] = variant.getValue().callsPerSecond();
            }
        }
        results.forEach((name, rounds) -> {
            double[] sorted = rounds.clone();
            Arrays.sort(sorted);
            System.out.printf("  %-75s %6.0f calls/s  (rounds: %s)%n", name, sorted[ROUNDS / 2],
                    Arrays.toString(Arrays.stream(rounds).mapToLong(Math::round).toArray()));
        });
        System.out.printf("  failed calls: %d%n", FAILURES.get());
    }

    private static Vault driver(VaultTransitStandIn standIn, boolean sharedClient) throws Exception {
        VaultConfig config = new VaultConfig().address(standIn.url()).token(standIn.rootToken()).engineVersion(1).readTimeout(10);
        if (sharedClient) {
            config.httpClient(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
        }
        return Vault.create(config.build(), 1);
    }

    private static double blocking(Vault vault, List<WrappedKey> wrapped, int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            long start = System.nanoTime();
            List<Future<?>> all = new ArrayList<>();
            for (int i = 0; i < CALLS; i++) {
                WrappedKey w = wrapped.get(i % wrapped.size());
                all.add(pool.submit(() -> {
                    try {
                        int status = vault.logical().write("transit/decrypt/" + KEY, Map.of("ciphertext", w.ciphertextText()))
                                .getRestResponse().getStatus();
                        if (status != 200) {
                            FAILURES.incrementAndGet();
                        }
                    }
                    catch (Exception e) {
                        FAILURES.incrementAndGet();
                    }
                }));
            }
            for (Future<?> f : all) {
                f.get(5, TimeUnit.MINUTES);
            }
            return CALLS / ((System.nanoTime() - start) / 1e9);
        }
        finally {
            pool.shutdownNow();
        }
    }

    /** {@code inFlight} lanes, each sending its next call from the completion of the previous, as event loops would. */
    private static double async(Kms kms, List<WrappedKey> wrapped, int inFlight) throws Exception {
        long start = System.nanoTime();
        List<CompletableFuture<?>> lanes = new ArrayList<>();
        for (int lane = 0; lane < inFlight; lane++) {
            lanes.add(lane(kms, wrapped, lane, CALLS / inFlight));
        }
        CompletableFuture.allOf(lanes.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
        return (CALLS / inFlight) * inFlight / ((System.nanoTime() - start) / 1e9);
    }

    private static CompletableFuture<?> lane(Kms kms, List<WrappedKey> wrapped, int i, int left) {
        if (left == 0) {
            return CompletableFuture.completedFuture(null);
        }
        return kms.unwrap(wrapped.get(i % wrapped.size())).toCompletableFuture()
                .handle((key, failure) -> {
                    if (failure != null) {
                        FAILURES.incrementAndGet();
                    }
                    return null;
                })
                .thenCompose(done -> lane(kms, wrapped, i + 1, left - 1));
    }
}
