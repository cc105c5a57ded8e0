package io.sluice.auth;

/**
 * How fast one principal may go through a proxy node, by kind; a null field sets no limit of that kind. The same three
 * fields are the Quotas filter's {@code defaults} and {@code overrides} (docs/quotas.md) and the {@code quotas} member
 * of a token's permissions claim, where they can only lower what the configuration allows ({@link #lowest}): one
 * definition for both, so the claim and the config cannot drift apart.
 *
 * @param produceBytesPerSecond bytes of records produced per second
 * @param fetchBytesPerSecond   bytes of records fetched per second (Fetch and ShareFetch)
 * @param requestsPerSecond     requests of any API per second
 */
public record QuotaLimits(Long produceBytesPerSecond, Long fetchBytesPerSecond, Long requestsPerSecond) {

    /** No limit of any kind. */
    public static final QuotaLimits NONE = new QuotaLimits(null, null, null);

    /** @throws IllegalArgumentException naming the field that is zero or negative */
    public QuotaLimits {
        positive(produceBytesPerSecond, "produceBytesPerSecond");
        positive(fetchBytesPerSecond, "fetchBytesPerSecond");
        positive(requestsPerSecond, "requestsPerSecond");
    }

    private static void positive(Long value, String field) {
        if (value != null && value <= 0) {
            throw new IllegalArgumentException(field + ": must be a positive number, not " + value);
        }
    }

    /** Whether no kind is limited. */
    public boolean isEmpty() {
        return produceBytesPerSecond == null && fetchBytesPerSecond == null && requestsPerSecond == null;
    }

    /** Field by field the lower of this and {@code other}; a kind limited by one only keeps that limit. */
    public QuotaLimits lowest(QuotaLimits other) {
        return new QuotaLimits(lower(produceBytesPerSecond, other.produceBytesPerSecond), lower(fetchBytesPerSecond, other.fetchBytesPerSecond),
                lower(requestsPerSecond, other.requestsPerSecond));
    }

    /** This, with the kinds it does not limit taken from {@code fallback}. */
    public QuotaLimits orElse(QuotaLimits fallback) {
        return new QuotaLimits(produceBytesPerSecond != null ? produceBytesPerSecond : fallback.produceBytesPerSecond,
                fetchBytesPerSecond != null ? fetchBytesPerSecond : fallback.fetchBytesPerSecond,
                requestsPerSecond != null ? requestsPerSecond : fallback.requestsPerSecond);
    }

    /** Each limit divided by {@code parts}, rounded up so that none becomes zero: one replica's share of a cluster-wide limit. */
    public QuotaLimits dividedBy(int parts) {
        if (parts < 1) {
            throw new IllegalArgumentException("parts must be at least 1, not " + parts);
        }
        return new QuotaLimits(share(produceBytesPerSecond, parts), share(fetchBytesPerSecond, parts), share(requestsPerSecond, parts));
    }

    private static Long lower(Long a, Long b) {
        return a == null ? b : b == null ? a : Long.valueOf(Math.min(a, b));
    }

    private static Long share(Long limit, int parts) {
        return limit == null ? null : Long.valueOf((limit + parts - 1) / parts);
    }

    @Override
    public String toString() {
        return "QuotaLimits[produce=" + text(produceBytesPerSecond, " B/s") + ", fetch=" + text(fetchBytesPerSecond, " B/s")
                + ", requests=" + text(requestsPerSecond, "/s") + "]";
    }

    private static String text(Long value, String unit) {
        return value == null ? "unlimited" : value + unit;
    }
}
