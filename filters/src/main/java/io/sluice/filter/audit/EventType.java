package io.sluice.filter.audit;

/**
 * The kinds of audit event, each with the name its {@code type} field carries (docs/audit.md lists the fields of each).
 * A fixed set, so that it can label metrics.
 */
enum EventType {
    CONNECTION_OPENED("connection.opened"),
    CONNECTION_CLOSED("connection.closed"),
    AUTHENTICATION_SUCCEEDED("authentication.succeeded"),
    AUTHENTICATION_FAILED("authentication.failed"),
    AUTHORIZATION_DENIED("authorization.denied"),
    ADMIN("admin"),
    POLICY_REFUSED("policy.refused"),
    QUOTA_THROTTLED("quota.throttled"),
    /** How many events of a sampled type one principal had suppressed in one interval. */
    EVENTS_SUPPRESSED("events.suppressed");

    private final String wireName;

    EventType(String wireName) {
        this.wireName = wireName;
    }

    String wireName() {
        return wireName;
    }
}
