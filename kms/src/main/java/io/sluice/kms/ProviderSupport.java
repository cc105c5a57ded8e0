package io.sluice.kms;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every cloud KMS provider's {@link KmsService} needs alike: its own daemon threads (a provider's calls and their
 * completions never run on the caller's thread, which may be an event loop), a secret read from a file, and timeouts
 * checked, each error naming its config field.
 */
public final class ProviderSupport {

    private ProviderSupport() {
    }

    /**
     * {@code threads} daemon threads named {@code prefix-N}. Unbounded queue: the key cache bounds and coalesces what
     * comes.
     */
    public static ExecutorService threads(String prefix, int threads) {
        AtomicInteger count = new AtomicInteger();
        return new ThreadPoolExecutor(threads, threads, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, prefix + "-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * The stripped content of a secret file.
     *
     * @throws IllegalArgumentException naming {@code field} if the file is missing, unreadable or empty
     */
    public static String secretFile(String field, String name) {
        Path file = Path.of(name);
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(field + ": '" + name + "' does not exist");
        }
        try {
            String secret = Files.readString(file, StandardCharsets.UTF_8).strip();
            if (secret.isEmpty()) {
                throw new IllegalArgumentException(field + ": '" + name + "' is empty");
            }
            return secret;
        }
        catch (IOException e) {
            throw new IllegalArgumentException(field + ": '" + name + "' cannot be read: " + e.getMessage(), e);
        }
    }

    /** @throws IllegalArgumentException naming {@code field} unless {@code value} is positive */
    public static void positive(String field, Duration value) {
        if (value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(field + ": must be positive");
        }
    }
}
