package io.sluice.filter.quota;

import java.util.List;

import io.sluice.auth.QuotaLimits;

/**
 * Which limits a principal gets: in, a principal's name and the limits its token carries; out, the limits this proxy
 * node enforces. The first override whose pattern matches the name, the kinds it leaves out from the defaults; then
 * lowered by the token's own (a token cannot raise a limit, but may set one where the config has none); then, in
 * cluster mode, this replica's share. Immutable, shared by every connection.
 */
final class QuotaRules {

    private final QuotaLimits defaults;
    private final List<QuotasConfig.PrincipalOverride> overrides;
    private final int shares;

    QuotaRules(QuotaLimits defaults, List<QuotasConfig.PrincipalOverride> overrides, int shares) {
        this.defaults = defaults;
        this.overrides = List.copyOf(overrides);
        this.shares = shares;
    }

    /** What the config gives {@code principal}, for the whole of what it describes (all replicas, in cluster mode). */
    QuotaLimits configured(String principal) {
        for (QuotasConfig.PrincipalOverride override : overrides) {
            if (override.pattern().matches(principal)) {
                return override.limits().orElse(defaults);
            }
        }
        return defaults;
    }

    /** What this node enforces for {@code principal} whose token carries {@code token}. */
    QuotaLimits enforced(String principal, QuotaLimits token) {
        QuotaLimits limits = configured(principal).lowest(token);
        return shares == 1 ? limits : limits.dividedBy(shares);
    }

    /** The configured limit of one kind for this node, null when none (what the limit gauge shows). */
    Long nodeLimit(String principal, QuotaKind kind) {
        Long limit = kind.limit(configured(principal));
        return limit == null ? null : (limit + shares - 1) / shares;
    }
}
