package io.sluice.filter.quota;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.auth.NamePattern;
import io.sluice.auth.QuotaLimits;

/**
 * The Quotas filter's {@code config} (docs/quotas.md): the limits every principal gets, the overrides by principal
 * pattern, how the rate is measured, and how a limit is shared between proxy replicas.
 *
 * @param defaults               the limits of a principal no override matches (absent: none)
 * @param overrides              principal pattern (the token patterns' syntax: {@code batch-*}, {@code alice}) to limits,
 *                               in the order written; the first that matches wins, and the kinds it leaves out come from
 *                               {@code defaults}
 * @param window                 the length of one sample (default 1 s, as Kafka's {@code quota.window.size.seconds})
 * @param samples                how many samples the rate is measured over (default 11, as {@code quota.window.num})
 * @param mode                   {@code node} (default): every limit is what one proxy node allows; {@code cluster}: the
 *                               limits are for all replicas together, and each enforces its share
 * @param replicas               with {@code mode: cluster}, how many proxy replicas share the limits
 * @param maxPrincipalsInMetrics principals with series of their own in the metrics (default 100); the rest are counted
 *                               as {@code principal="other"}
 */
public record QuotasConfig(QuotaLimits defaults, Map<String, QuotaLimits> overrides, Duration window, Integer samples, Mode mode,
                           Integer replicas, Integer maxPrincipalsInMetrics) {

    /** How a configured limit relates to the proxy replicas. */
    public enum Mode {
        /** Each proxy node enforces the whole limit: N replicas behind a balancer allow up to N times it. */
        NODE,
        /** The limit is for all replicas together: each enforces limit / replicas. */
        CLUSTER
    }

    public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(1);
    public static final int DEFAULT_SAMPLES = 11;
    public static final int DEFAULT_MAX_PRINCIPALS_IN_METRICS = 100;
    static final Duration MIN_WINDOW = Duration.ofMillis(10);
    static final Duration MAX_WINDOW = Duration.ofMinutes(1);
    static final int MAX_SAMPLES = 100;
    static final int MAX_OVERRIDES = 10_000;
    static final int MAX_METRIC_PRINCIPALS = 10_000;

    public QuotasConfig {
        defaults = defaults == null ? QuotaLimits.NONE : defaults;
        // In the order written: the first matching override wins.
        overrides = overrides == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(overrides));
        window = window == null ? DEFAULT_WINDOW : window;
        samples = samples == null ? DEFAULT_SAMPLES : samples;
        mode = mode == null ? Mode.NODE : mode;
        maxPrincipalsInMetrics = maxPrincipalsInMetrics == null ? DEFAULT_MAX_PRINCIPALS_IN_METRICS : maxPrincipalsInMetrics;
    }

    /** Only limits, the rest defaulted. */
    public QuotasConfig(QuotaLimits defaults, Map<String, QuotaLimits> overrides) {
        this(defaults, overrides, null, null, null, null, null);
    }

    /** The replicas the limits are divided among: 1 in node mode. */
    int shares() {
        return mode == Mode.CLUSTER && replicas != null ? replicas : 1;
    }

    /**
     * The overrides compiled, in order.
     *
     * @throws IllegalArgumentException listing every problem of the config, each starting with its field
     */
    List<PrincipalOverride> validated() {
        List<String> problems = new ArrayList<>();
        if (window.compareTo(MIN_WINDOW) < 0 || window.compareTo(MAX_WINDOW) > 0) {
            problems.add("window: must be between " + MIN_WINDOW.toMillis() + "ms and " + MAX_WINDOW.toSeconds() + "s, not " + window);
        }
        if (samples < 2 || samples > MAX_SAMPLES) {
            problems.add("samples: must be between 2 and " + MAX_SAMPLES + ", not " + samples);
        }
        if (mode == Mode.CLUSTER && replicas == null) {
            problems.add("replicas: is required with mode: cluster (how many proxy replicas share the limits)");
        } else if (mode == Mode.CLUSTER && replicas < 1) {
            problems.add("replicas: must be at least 1, not " + replicas);
        } else if (mode == Mode.NODE && replicas != null) {
            problems.add("replicas: applies to mode: cluster only (with mode: node every replica enforces the whole limit)");
        }
        if (maxPrincipalsInMetrics < 0 || maxPrincipalsInMetrics > MAX_METRIC_PRINCIPALS) {
            problems.add("maxPrincipalsInMetrics: must be between 0 and " + MAX_METRIC_PRINCIPALS + ", not " + maxPrincipalsInMetrics);
        }
        if (overrides.size() > MAX_OVERRIDES) {
            problems.add("overrides: more than " + MAX_OVERRIDES + " patterns");
        }
        List<PrincipalOverride> compiled = new ArrayList<>();
        for (Map.Entry<String, QuotaLimits> e : overrides.entrySet()) {
            String path = "overrides." + e.getKey();
            try {
                compiled.add(new PrincipalOverride(e.getKey(), NamePattern.compile(e.getKey()), e.getValue() == null ? QuotaLimits.NONE : e.getValue()));
            } catch (IllegalArgumentException bad) {
                problems.add(path + ": " + bad.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        return compiled;
    }

    /** One override: the pattern as written, compiled, and its limits. */
    record PrincipalOverride(String text, NamePattern pattern, QuotaLimits limits) {
    }
}
