package io.sluice.filter.quota;

import io.sluice.auth.QuotaLimits;

/** What a quota limits: the {@code kind} label of the metrics, and which field of {@link QuotaLimits} holds the limit. */
enum QuotaKind {
    PRODUCE("produce"),
    FETCH("fetch"),
    REQUEST("request");

    private final String label;

    QuotaKind(String label) {
        this.label = label;
    }

    String label() {
        return label;
    }

    /** The limit of this kind in {@code limits}, null when it sets none. */
    Long limit(QuotaLimits limits) {
        return switch (this) {
            case PRODUCE -> limits.produceBytesPerSecond();
            case FETCH -> limits.fetchBytesPerSecond();
            case REQUEST -> limits.requestsPerSecond();
        };
    }
}
