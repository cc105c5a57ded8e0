package io.sluice.kms.vault;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.kms.DataKey;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.cache.KeyCache;
import io.sluice.kms.cache.KeyCacheConfig;
import io.sluice.kms.vault.standin.VaultAdmin;
import io.sluice.kms.vault.standin.VaultTransitStandIn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Logins, renewals, refusals and key traffic leave no token, secret id or plaintext key in the logs. */
class VaultLogHygieneTest {

    @Test
    void noSecretReachesTheLogs(@TempDir Path dir) throws Exception {
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.start();
        root.addAppender(events);
        List<String> secrets = new ArrayList<>();
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try (VaultTransitStandIn standIn = VaultTransitStandIn.start()) {
            VaultAdmin admin = new VaultAdmin(standIn.url(), standIn.rootToken(), null, javax.net.ssl.SSLContext.getDefault());
            admin.createKey("transit", "kek-logs");
            admin.createRole("logs", Duration.ofSeconds(2), Duration.ofSeconds(3), "none");
            String secretId = admin.newSecretId("logs");
            secrets.add(secretId);
            Path secretIdFile = Files.writeString(dir.resolve("secret-id"), secretId);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            VaultKmsService service = new VaultKmsService();
            AppRole appRole = new AppRole(admin.roleId("logs"), null, secretIdFile.toString(), null);
            try (Kms appRoleKms = service.create(config(standIn, new VaultAuth(null, null, null, appRole)), registry);
                 Kms wrongSecret = service.create(config(standIn, new VaultAuth(null, null, null,
                         new AppRole(appRole.roleId(), "wrong-secret-id", null, null))), registry);
                 Kms rootKms = service.create(config(standIn, new VaultAuth(standIn.rootToken(), null, null, null)), registry);
                 KeyCache cache = KeyCache.create(rootKms, KeyCacheConfig.defaults(), registry, timer)) {
                secrets.add("wrong-secret-id");
                appRoleKms.resolveKek("kek-logs").toCompletableFuture().handle((k, e) -> null).join();
                wrongSecret.resolveKek("kek-logs").toCompletableFuture().handle((k, e) -> null).join();
                DataKey dataKey = cache.encryptionKey("kek-logs", 1).toCompletableFuture().join();
                secrets.add(Base64.getEncoder().encodeToString(dataKey.key().getEncoded()));
                DataKey direct = rootKms.generateDataKey(new KekRef("kek-logs", 1)).toCompletableFuture().join();
                secrets.add(Base64.getEncoder().encodeToString(rootKms.unwrap(direct.wrapped()).toCompletableFuture().join().getEncoded()));
                await().atMost(Duration.ofSeconds(30)).until(() -> registry.find(VaultSession.AUTH_EVENTS)
                        .tag("event", "login").tag("outcome", "success").counter() != null
                        && registry.find(VaultSession.AUTH_EVENTS).tag("event", "login").tag("outcome", "success").counter().count() >= 2);
            }
            secrets.addAll(standIn.tokens());
        }
        finally {
            root.detachAppender(events);
            timer.shutdownNow();
        }
        assertThat(events.list).isNotEmpty();
        for (ILoggingEvent event : events.list) {
            String text = event.getFormattedMessage()
                    + (event.getThrowableProxy() == null ? "" : ThrowableProxyUtil.asString(event.getThrowableProxy()));
            for (String secret : secrets) {
                assertThat(text).as("log line %s", event.getFormattedMessage()).doesNotContain(secret);
            }
        }
    }

    private static VaultKmsConfig config(VaultTransitStandIn standIn, VaultAuth auth) {
        return new VaultKmsConfig(standIn.url(), null, null, auth, null, null, null);
    }
}
