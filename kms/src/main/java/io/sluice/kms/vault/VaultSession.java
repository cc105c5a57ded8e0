package io.sluice.kms.vault;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.github.jopenlibs.vault.VaultException;
import io.github.jopenlibs.vault.response.AuthResponse;
import io.github.jopenlibs.vault.response.LookupResponse;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.kms.KmsException;
import io.sluice.kms.KmsForbiddenException;
import io.sluice.kms.KmsUnavailableException;

/**
 * The token the Transit calls send, kept valid: renewed at two thirds of its TTL while Vault renews it in full, and
 * replaced by a new login (AppRole, token file) once renewal no longer extends it or fails, or when Vault refuses it.
 *
 * <p>All driver calls (they block) run on one daemon thread of this session's own; {@link #token()} never blocks.
 * A replacement token takes over only once it exists, so calls never wait for a scheduled re-login.
 *
 * <p>Counts {@code sluice.kms.vault.auth{event=login|renewal|lookup, outcome=success|failure}}.
 */
final class VaultSession implements AutoCloseable {

    static final String AUTH_EVENTS = "sluice.kms.vault.auth";

    private static final Logger LOG = LoggerFactory.getLogger(VaultSession.class);
    private static final long MIN_DELAY_MILLIS = 500;
    private static final long RETRY_MILLIS = 5_000;
    /** After a failed login, calls share its failure this long instead of each starting another login. */
    private static final long FAILED_LOGIN_HOLD_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final VaultCredentials credentials;
    private final VaultDriver driver;
    private final MeterRegistry registry;
    private final ScheduledExecutorService authThread;

    // Guarded by this.
    private CompletableFuture<String> current;
    private long failedAtNanos;
    private long grantedTtlSeconds;
    private ScheduledFuture<?> next;
    private boolean closed;

    VaultSession(VaultCredentials credentials, VaultDriver driver, MeterRegistry registry) {
        this.credentials = credentials;
        this.driver = driver;
        this.registry = registry;
        this.authThread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-kms-vault-auth");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts logging in, in the background. */
    void start() {
        token();
    }

    /** The current token, or a login under way. Fails with a {@link KmsException} when the login failed. */
    CompletableFuture<String> token() {
        CompletableFuture<String> target;
        synchronized (this) {
            if (closed) {
                return CompletableFuture.failedFuture(new KmsException("the Vault KMS is closed"));
            }
            boolean retryLogin = current != null && current.isCompletedExceptionally()
                    && System.nanoTime() - failedAtNanos >= FAILED_LOGIN_HOLD_NANOS;
            if (current != null && !retryLogin) {
                return current;
            }
            target = current = new CompletableFuture<>();
        }
        submit(() -> login(target));
        return target;
    }

    /**
     * Vault refused {@code denied}: a replacement token if the credentials can give one (a login already under way
     * counts), otherwise {@code denied} itself.
     */
    CompletableFuture<String> replace(String denied) {
        if (!credentials.canReplaceToken()) {
            return CompletableFuture.completedFuture(denied);
        }
        CompletableFuture<String> target;
        synchronized (this) {
            if (closed) {
                return CompletableFuture.completedFuture(denied);
            }
            if (!isCurrent(denied)) {
                return current;
            }
            target = current = new CompletableFuture<>();
        }
        LOG.info("Vault refused the token; getting a new one ({})", credentials);
        submit(() -> login(target));
        return target;
    }

    private void login(CompletableFuture<String> target) {
        VaultCredentials.VaultLogin login;
        try {
            login = credentials.login(driver);
        }
        catch (VaultException | IOException | RuntimeException e) {
            if (isClosed()) {
                return;
            }
            KmsException failure = loginFailure(e);
            synchronized (this) {
                failedAtNanos = System.nanoTime();
            }
            count("login", "failure");
            LOG.warn("Vault login ({}) failed: {}", credentials, failure.getMessage());
            target.completeExceptionally(failure);
            return;
        }
        count("login", "success");
        target.complete(login.token());
        afterLogin(login);
    }

    /** A planned re-login: the old token keeps serving until the new one exists. */
    private void reloginInBackground() {
        VaultCredentials.VaultLogin login;
        try {
            login = credentials.login(driver);
        }
        catch (VaultException | IOException | RuntimeException e) {
            if (isClosed()) {
                return;
            }
            count("login", "failure");
            LOG.warn("Vault re-login ({}) failed, trying again in {} ms: {}", credentials, RETRY_MILLIS, loginFailure(e).getMessage());
            schedule(this::reloginInBackground, RETRY_MILLIS);
            return;
        }
        count("login", "success");
        synchronized (this) {
            if (closed) {
                return;
            }
            current = CompletableFuture.completedFuture(login.token());
        }
        afterLogin(login);
    }

    private void afterLogin(VaultCredentials.VaultLogin login) {
        if (login.ttlSeconds() == VaultCredentials.VaultLogin.UNKNOWN_TTL) {
            schedule(() -> lookup(login.token()), 0);
            return;
        }
        synchronized (this) {
            grantedTtlSeconds = login.ttlSeconds();
        }
        LOG.info("Vault login ({}) succeeded: token TTL {} s, renewable {}", credentials, login.ttlSeconds(), login.renewable());
        plan(login.token(), login.ttlSeconds(), login.renewable(), false);
    }

    /** Learns a given token's TTL, to renew it in time. */
    private void lookup(String token) {
        if (!stillCurrent(token)) {
            return;
        }
        LookupResponse response;
        try {
            response = driver.auth(token).lookupSelf();
        }
        catch (VaultException e) {
            if (isClosed()) {
                return;
            }
            count("lookup", "failure");
            if (e.getHttpStatusCode() == 403) {
                LOG.warn("Vault refused lookup-self for the configured token: its TTL is unknown, so it will not be renewed");
            }
            else {
                LOG.warn("Vault token lookup failed, trying again in {} ms: {}", RETRY_MILLIS, brief(e));
                schedule(() -> lookup(token), RETRY_MILLIS);
            }
            return;
        }
        count("lookup", "success");
        synchronized (this) {
            grantedTtlSeconds = Math.max(response.getCreationTTL(), response.getTTL());
        }
        LOG.info("Vault token: TTL {} s, renewable {}", response.getTTL(), response.isRenewable());
        plan(token, response.getTTL(), response.isRenewable(), false);
    }

    private void renew(String token) {
        if (!stillCurrent(token)) {
            return;
        }
        AuthResponse response;
        try {
            response = driver.auth(token).renewSelf();
        }
        catch (VaultException e) {
            if (isClosed()) {
                return;
            }
            count("renewal", "failure");
            if (credentials.canReplaceToken()) {
                LOG.warn("Vault token renewal failed, logging in again: {}", brief(e));
                reloginInBackground();
            }
            else if (e.getHttpStatusCode() != 403) {
                LOG.warn("Vault token renewal failed, trying again in {} ms: {}", RETRY_MILLIS, brief(e));
                schedule(() -> renew(token), RETRY_MILLIS);
            }
            else {
                LOG.warn("Vault refused to renew the token; calls will fail once it expires");
            }
            return;
        }
        count("renewal", "success");
        long ttl = response.getAuthLeaseDuration();
        boolean capped;
        synchronized (this) {
            // Vault renews up to the token's max TTL: a shorter TTL than granted means the end is near.
            capped = ttl < grantedTtlSeconds;
        }
        plan(token, ttl, response.isAuthRenewable(), capped);
    }

    private void plan(String token, long ttlSeconds, boolean renewable, boolean capped) {
        if (ttlSeconds <= 0 && !capped) {
            return; // never expires (a root token, say)
        }
        long delay = Math.max(MIN_DELAY_MILLIS, ttlSeconds * 1000 * 2 / 3);
        if (renewable && !capped) {
            schedule(() -> renew(token), delay);
        }
        else if (credentials.canReplaceToken()) {
            schedule(this::reloginInBackground, delay);
        }
        else if (renewable && ttlSeconds > 2) {
            schedule(() -> renew(token), delay);
        }
        else {
            LOG.warn("Vault token expires in {} s and can be neither renewed nor replaced", ttlSeconds);
        }
    }

    /** Failures after close() are its interruptions, not news. */
    private synchronized boolean isClosed() {
        return closed;
    }

    private synchronized boolean stillCurrent(String token) {
        return !closed && isCurrent(token);
    }

    /** Caller holds the lock. */
    private boolean isCurrent(String token) {
        return current != null && current.isDone() && !current.isCompletedExceptionally() && token.equals(current.join());
    }

    private synchronized void schedule(Runnable task, long delayMillis) {
        if (closed) {
            return;
        }
        if (next != null) {
            next.cancel(false);
        }
        try {
            next = authThread.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
        }
        catch (RejectedExecutionException e) {
            // closing
        }
    }

    private void submit(Runnable task) {
        try {
            authThread.execute(task);
        }
        catch (RejectedExecutionException e) {
            // closing; close() fails whatever is pending
        }
    }

    private void count(String event, String outcome) {
        Counter.builder(AUTH_EVENTS).description("Vault logins, token renewals and lookups, by outcome")
                .tag("event", event).tag("outcome", outcome).register(registry).increment();
    }

    private static KmsException loginFailure(Exception e) {
        if (e instanceof VaultException vault) {
            int status = vault.getHttpStatusCode();
            if (status == 400 || status == 401 || status == 403) {
                return new KmsForbiddenException("Vault refused the login: " + brief(vault));
            }
            return new KmsUnavailableException("Vault login failed: " + brief(vault), e);
        }
        if (e instanceof IOException) {
            return new KmsException("cannot read the Vault credentials: " + e.getMessage(), e);
        }
        return new KmsException("Vault login failed: " + e, e);
    }

    /** Status and Vault's error messages; the driver puts the whole response body in its messages. */
    static String brief(VaultException e) {
        String message = e.getMessage() == null ? "" : e.getMessage();
        int body = message.indexOf("Response body: ");
        if (e.getHttpStatusCode() > 0 && body >= 0) {
            byte[] json = message.substring(body + "Response body: ".length()).getBytes(StandardCharsets.UTF_8);
            return VaultReply.parse(e.getHttpStatusCode(), json).errorText();
        }
        if (e.getHttpStatusCode() > 0) {
            return "HTTP " + e.getHttpStatusCode();
        }
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        return cause.toString();
    }

    @Override
    public void close() {
        CompletableFuture<String> pending;
        synchronized (this) {
            closed = true;
            if (next != null) {
                next.cancel(false);
            }
            pending = current;
        }
        authThread.shutdownNow();
        if (pending != null) {
            pending.completeExceptionally(new KmsException("the Vault KMS is closed"));
        }
    }

    @Override
    public String toString() {
        return "VaultSession[" + credentials + "]";
    }
}
