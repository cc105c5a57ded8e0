package io.sluice.filter.policy;

import java.time.Clock;

import io.sluice.filter.records.RecordLimits;
import io.sluice.filter.records.RecordReaders;
import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.filter.FilterFactoryContext;

/**
 * Policies: what a tenant may produce (acks, compression, idempotence, sizes, keys, headers, timestamps) and what
 * topics it may create and how it may configure them (names, partitions, replication, min.insync.replicas, config
 * keys and values), per principal, each policy enforced or in warn mode. One definition per virtual cluster (its
 * {@code filters}), after JwtAuth, which sets the principal, and before filters that rename topics or rewrite
 * records (KeyRouting, RecordEncryption), so that policies judge what the client sent. See docs/policies.md.
 *
 * <pre>
 * filterDefinitions:
 *   - name: tenant-policies
 *     type: Policies
 *     config:
 *       rules:
 *         - name: tenants
 *           principals: ["team-*"]
 *           produce: {requiredAcks: all, requireKey: true}
 *           topics: {names: ["$(principal).*"], partitions: {max: 12}, minReplicationFactor: 3}
 * </pre>
 */
public final class Policies implements FilterFactory<PoliciesConfig, Policies.Shared> {

    /** What every connection of one definition shares: the compiled rules, the meters and log, the record limits, the clock. */
    record Shared(Rules rules, Violations violations, RecordReaders records, Clock clock) {
    }

    @Override
    public Class<PoliciesConfig> configType() {
        return PoliciesConfig.class;
    }

    @Override
    public Shared initialize(FilterFactoryContext context, PoliciesConfig config) {
        return initialize(context, config, Clock.systemUTC());
    }

    /** @param clock the proxy's clock, against which record timestamps are judged */
    Shared initialize(FilterFactoryContext context, PoliciesConfig config, Clock clock) {
        Rules rules = Rules.compile(config);
        return new Shared(rules, new Violations(context.meterRegistry(), context.filterName()),
                new RecordReaders(RecordLimits.orDefaults(config.records()), context.meterRegistry(), context.filterName()), clock);
    }

    @Override
    public Filter createFilter(FilterFactoryContext context, Shared shared) {
        return new PoliciesFilter(shared.rules(), shared.violations(), shared.records(), shared.clock());
    }
}
