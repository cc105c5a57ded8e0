package io.sluice.bridge.auth;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A test double for {@link Authenticator}: the token spells out its own claims, e.g.
 * {@code sub=alice;exp=1700000000000;read=scores/live/*,news/x;write=scores/x}. A grant {@code topic/key} allows that
 * key, {@code topic/prefix*} every key starting with the prefix, {@code topic/*} the whole topic. {@code exp} is epoch
 * milliseconds; {@code ttl} instead makes the token expire that many milliseconds after it is presented, so tests do
 * not race a clock; neither means no expiry. Any token that does not parse is rejected.
 */
public final class TestAuthenticator implements Authenticator {

    @Override
    public CompletionStage<Principal> authenticate(String token) {
        try {
            return CompletableFuture.completedFuture(parse(token));
        }
        catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new AuthenticationException("invalid token: " + e.getMessage()));
        }
    }

    /** A token for {@code subject} with these grants that never expires. */
    public static String token(String subject, String read, String write) {
        return "sub=" + subject + ";read=" + read + ";write=" + write;
    }

    /** A token that expires {@code ttl} after the bridge validates it. */
    public static String token(String subject, java.time.Duration ttl, String read, String write) {
        return "sub=" + subject + ";ttl=" + ttl.toMillis() + ";read=" + read + ";write=" + write;
    }

    private static Principal parse(String token) {
        String subject = null;
        Instant expiresAt = null;
        List<String> read = new ArrayList<>();
        List<String> write = new ArrayList<>();
        for (String part : token.split(";")) {
            int eq = part.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("'" + part + "' is not name=value");
            }
            String value = part.substring(eq + 1);
            switch (part.substring(0, eq)) {
                case "sub" -> subject = value;
                case "exp" -> expiresAt = Instant.ofEpochMilli(Long.parseLong(value));
                case "ttl" -> expiresAt = Instant.now().plusMillis(Long.parseLong(value));
                case "read" -> read.addAll(grants(value));
                case "write" -> write.addAll(grants(value));
                default -> throw new IllegalArgumentException("unknown claim " + part);
            }
        }
        if (subject == null) {
            throw new IllegalArgumentException("no subject");
        }
        if (expiresAt != null && !expiresAt.isAfter(Instant.now())) {
            throw new IllegalArgumentException("expired");
        }
        return new Grants(subject, expiresAt, List.copyOf(read), List.copyOf(write));
    }

    private static List<String> grants(String value) {
        return value.isEmpty() ? List.of() : List.of(value.split(","));
    }

    private record Grants(String subject, Instant expiresAt, List<String> read, List<String> write) implements Principal {

        @Override
        public boolean canSubscribe(String topic, String key) {
            return read.stream().anyMatch(g -> allows(g, topic, key));
        }

        @Override
        public boolean canSubscribeAll(String topic, String keyPrefix) {
            return read.stream().anyMatch(g -> g.endsWith("*") && allows(g, topic, keyPrefix));
        }

        @Override
        public boolean canPublish(String topic, String key) {
            return write.stream().anyMatch(g -> allows(g, topic, key));
        }

        private static boolean allows(String grant, String topic, String key) {
            int slash = grant.indexOf('/');
            if (!grant.substring(0, slash).equals(topic)) {
                return false;
            }
            String pattern = grant.substring(slash + 1);
            return pattern.endsWith("*") ? key.startsWith(pattern.substring(0, pattern.length() - 1)) : pattern.equals(key);
        }
    }
}
