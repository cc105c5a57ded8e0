package io.sluice.bench.bridge;

import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.sluice.bridge.auth.AuthenticationException;
import io.sluice.bridge.auth.Authenticator;
import io.sluice.bridge.auth.Principal;

/**
 * For {@code sluice bench bridge} only: accepts exactly one token, a random secret the bench command makes for its run
 * and hands to its own child bridge ({@link BenchBridgeNode}), and lets it read one topic. It exists because the JWT
 * authenticator is not in this build yet (docs/bridge.md); no configuration and no other command can select it, so a
 * bridge started with {@code sluice bridge} still refuses to run without JWT. It may publish only to the topic's keys
 * {@code p...} ({@link BenchTopic#PUBLISH_PREFIX}), which the bench's publishing clients write and no subscriber reads.
 */
final class BenchOnlyAuthenticator implements Authenticator {

    private final String token;
    private final String topic;

    BenchOnlyAuthenticator(String token, String topic) {
        if (token == null || token.length() < 16) {
            throw new IllegalArgumentException("the bench token must be a secret of at least 16 characters");
        }
        this.token = token;
        this.topic = topic;
    }

    @Override
    public CompletionStage<Principal> authenticate(String presented) {
        if (!token.equals(presented)) {
            return CompletableFuture.failedFuture(new AuthenticationException("not the bench token"));
        }
        return CompletableFuture.completedFuture(new ReadOneTopic(topic));
    }

    private record ReadOneTopic(String topic) implements Principal {
        @Override
        public String subject() {
            return "bench";
        }

        @Override
        public Instant expiresAt() {
            return null;
        }

        @Override
        public boolean canSubscribe(String topic, String key) {
            return this.topic.equals(topic);
        }

        @Override
        public boolean canSubscribeAll(String topic, String keyPrefix) {
            return this.topic.equals(topic);
        }

        @Override
        public boolean canPublish(String topic, String key) {
            return this.topic.equals(topic) && key.startsWith(BenchTopic.PUBLISH_PREFIX);
        }
    }
}
