package io.sluice.proxy.metrics;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Meters of the SNI listeners: {@code sluice_sni_refused_total{reason}}, connections refused before they reached a
 * gateway. Every reason is registered up front, so a scrape shows the zeros an alert can compare against; the reasons
 * are a fixed list, never client text.
 */
public final class SniMetrics {

    private final Map<String, Counter> refused;

    public SniMetrics(MeterRegistry registry, List<String> reasons) {
        this.refused = reasons.stream().collect(Collectors.toUnmodifiableMap(Function.identity(), reason -> Counter.builder("sluice.sni.refused")
                .description("Connections to an SNI listener refused before they reached a gateway (no or an unknown server name, not TLS, "
                        + "too slow, too many at once)")
                .tag("reason", reason)
                .register(registry)));
    }

    /** @param reason one of the reasons given to the constructor */
    public void refused(String reason) {
        Counter counter = refused.get(reason);
        if (counter == null) {
            throw new IllegalArgumentException("not an SNI refusal reason: " + reason);
        }
        counter.increment();
    }
}
