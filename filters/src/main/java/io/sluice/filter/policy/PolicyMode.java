package io.sluice.filter.policy;

import java.util.Locale;

/** What a policy does with a request that breaks it. */
public enum PolicyMode {
    /** Refuse it with the Kafka error the policy names (the default). */
    ENFORCE,
    /** Let it through unchanged, and log (rate-limited) and count what would have been refused: for rolling a policy out. */
    WARN;

    /** The {@code mode} label of the violations metric. */
    String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
