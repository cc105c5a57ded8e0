package io.sluice.filter.jwt;

import java.util.Locale;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.auth.TokenRejectedException;

/**
 * Counts authentications by outcome ({@code accepted} or the rejection reason) and sessions closed because
 * they expired, per filter definition: {@code sluice_jwt_authentications_total{filter,outcome}} and
 * {@code sluice_jwt_sessions_expired_total{filter}}; and requests refused by authorization,
 * {@code sluice_jwt_requests_denied_total{filter,api}}.
 */
final class AuthMetrics {

    private final MeterRegistry registry;
    private final String filter;
    private final Counter accepted;
    private final Counter expired;

    AuthMetrics(MeterRegistry registry, String filter) {
        this.registry = registry;
        this.filter = filter;
        this.accepted = outcome("accepted");
        this.expired = Counter.builder("sluice.jwt.sessions.expired")
                .description("Connections closed because their token expired without re-authentication")
                .tag("filter", filter)
                .register(registry);
    }

    void accepted() {
        accepted.increment();
    }

    void rejected(TokenRejectedException.Reason reason) {
        outcome(reason.name().toLowerCase(Locale.ROOT)).increment();
    }

    void refused(String outcome) {
        outcome(outcome).increment();
    }

    void expired() {
        expired.increment();
    }

    /** An authenticated principal's request refused, or the connection closed, by authorization. */
    void denied(String api) {
        Counter.builder("sluice.jwt.requests.denied")
                .description("Requests of authenticated principals refused by their permissions, by API")
                .tag("filter", filter)
                .tag("api", api)
                .register(registry).increment();
    }

    private Counter outcome(String outcome) {
        // Registration is idempotent: the registry hands back the existing counter for the same tags.
        return Counter.builder("sluice.jwt.authentications")
                .description("SASL/OAUTHBEARER authentications by outcome")
                .tag("filter", filter)
                .tag("outcome", outcome)
                .register(registry);
    }
}
