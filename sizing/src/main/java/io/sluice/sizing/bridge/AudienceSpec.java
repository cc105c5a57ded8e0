package io.sluice.sizing.bridge;

/**
 * The audience to size the bridge for.
 *
 * @param users           concurrent connections
 * @param messagesPerUser messages per second each user receives
 */
public record AudienceSpec(long users, double messagesPerUser, double headroom, int podMaxMillicores, long podMaxMemoryBytes) {

    public AudienceSpec {
        if (users <= 0) {
            throw new IllegalArgumentException("users must be positive, not " + users);
        }
        if (messagesPerUser < 0) {
            throw new IllegalArgumentException("messages per user cannot be negative: " + messagesPerUser);
        }
        if (headroom < 1) {
            throw new IllegalArgumentException("headroom is a multiplier of at least 1, not " + headroom);
        }
    }

    public double messagesPerSecond() {
        return users * messagesPerUser;
    }
}
