package io.sluice.auth;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.sluice.auth.testing.TestIssuer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The authenticator's pool: validations wait in a bounded queue, and one too many is refused at once, not queued. */
class AuthenticatorTest {

    private static final String SECRET = "a-test-secret-that-is-at-least-32-bytes-long";

    @Test
    void validationsBeyondTheQueueAreRefusedAsBusyAndTheQueuedOnesStillComplete() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        // Every validation reads the clock; this one holds them there, as a slow JWKS fetch would.
        Clock held = new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return Instant.now();
            }
        };
        JwtConfig config = TestJwtConfig.jwks(null, TestIssuer.ISSUER, TestIssuer.AUDIENCE).hmacSecret(SECRET).maxQueuedValidations(1).build();
        String token = TestIssuer.hmac(SECRET).token("alice", Duration.ofMinutes(5), Map.of());
        try (TokenAuthenticator authenticator = TokenAuthenticator.create(config, held)) {
            List<CompletableFuture<Grant>> admitted = new ArrayList<>();
            // Two run on the pool's two threads, one waits in the queue of one.
            for (int i = 0; i < 3; i++) {
                admitted.add(authenticator.authenticateAsync(token));
            }

            CompletableFuture<Grant> refused = authenticator.authenticateAsync(token);

            assertThat(refused).isCompletedExceptionally();
            assertThatThrownBy(refused::join).hasCauseInstanceOf(AuthenticatorBusyException.class);
            release.countDown();
            for (CompletableFuture<Grant> grant : admitted) {
                assertThat(grant.get(10, TimeUnit.SECONDS).subject()).isEqualTo("alice");
            }
            assertThat(authenticator.authenticateAsync(token).get(10, TimeUnit.SECONDS).subject()).isEqualTo("alice");
        }
    }

    @Test
    void aQueueOfLessThanOneIsRefused() {
        JwtConfig config = TestJwtConfig.jwks(null, TestIssuer.ISSUER, TestIssuer.AUDIENCE).hmacSecret(SECRET).maxQueuedValidations(0).build();

        assertThatThrownBy(() -> TokenAuthenticator.create(config, Clock.systemUTC()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxQueuedValidations: must be at least 1");
    }
}
