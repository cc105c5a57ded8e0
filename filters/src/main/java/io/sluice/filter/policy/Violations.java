package io.sluice.filter.policy;

import java.util.EnumMap;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.auth.Untrusted;
import io.sluice.logging.RateLimitedLog;
import io.sluice.proxy.filter.AuthenticatedPrincipal;
import io.sluice.proxy.filter.FilterContext;

/**
 * What an operator sees of policy violations: {@code sluice_policy_violations_total{filter, policy, mode}} (policy is
 * one of {@link PolicyId}'s fixed names and mode {@code enforce} or {@code warn}, so the labels are bounded whatever
 * clients send), and a log line at most every {@link RateLimitedLog#DEFAULT_INTERVAL} per mode: INFO for refusals,
 * WARN for what warn mode let through (the line an operator rolling a policy out looks for). Any client chooses how
 * often it breaks a policy; one line per request would let it fill the log.
 *
 * <p>Shared by every connection of one filter definition; thread-safe.</p>
 */
final class Violations {

    private static final Logger LOG = LoggerFactory.getLogger(Violations.class);

    private final Map<PolicyId, Counter> enforced = new EnumMap<>(PolicyId.class);
    private final Map<PolicyId, Counter> warned = new EnumMap<>(PolicyId.class);
    private final RateLimitedLog refusals = new RateLimitedLog(LOG, Level.INFO, RateLimitedLog.DEFAULT_INTERVAL);
    private final RateLimitedLog warnings = new RateLimitedLog(LOG, Level.WARN, RateLimitedLog.DEFAULT_INTERVAL);

    Violations(MeterRegistry registry, String filter) {
        for (PolicyId policy : PolicyId.values()) {
            enforced.put(policy, counter(registry, filter, policy, PolicyMode.ENFORCE));
            warned.put(policy, counter(registry, filter, policy, PolicyMode.WARN));
        }
    }

    /** Counts and logs everything {@code judgement} found, for the request {@code what} (e.g. "Produce to orders-0"). */
    void report(Judgement judgement, FilterContext context, String what) {
        for (Violation violation : judgement.violations()) {
            report(violation, context, what);
        }
    }

    void report(Violation violation, FilterContext context, String what) {
        String principal = context.principal().map(AuthenticatedPrincipal::name).map(Untrusted::text).orElse("(unauthenticated)");
        if (violation.mode() == PolicyMode.WARN) {
            warned.get(violation.policy()).increment();
            warnings.log("{}: {} of {} breaks {} (warn mode: let through; enforced it would be refused with {})", context.channelDescriptor(), what,
                    principal, violation.message(), violation.error());
        } else {
            enforced.get(violation.policy()).increment();
            refusals.log("{}: {} of {} refused with {}: {}", context.channelDescriptor(), what, principal, violation.error(), violation.message());
        }
    }

    private static Counter counter(MeterRegistry registry, String filter, PolicyId policy, PolicyMode mode) {
        return Counter.builder("sluice.policy.violations")
                .description("Requests, partitions, topics or config resources that broke a policy: refused (mode enforce) or let through (mode warn)")
                .tag("filter", filter).tag("policy", policy.id()).tag("mode", mode.label())
                .register(registry);
    }
}
