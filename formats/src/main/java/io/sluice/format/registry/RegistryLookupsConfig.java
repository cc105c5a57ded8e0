package io.sluice.format.registry;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * How fast a node asks the registry about schema ids it has not seen ({@code schemaRegistry.lookups}). Schema ids come
 * from record bytes, which anyone who can produce chooses: without a rate, a producer writing fresh bogus ids makes
 * every node of the bridge send one request per record. Over the rate the records wait (their partition stays paused),
 * nothing is lost.
 *
 * @param perSecond new-id lookups a node starts per second, at most
 * @param burst     lookups it may start at once after a quiet spell (a node starting up meets its topics' schemas
 *                  together)
 */
public record RegistryLookupsConfig(double perSecond, int burst) {

    /**
     * 20 a second (decision): schemas change rarely, so an honest node meets a few new ids a day after its start; an
     * attacker's ids cost the registry at most 20 requests a second per node, whatever the record rate.
     */
    public static final double DEFAULT_PER_SECOND = 20;
    /** 100 (decision): a node reading dozens of topics resolves their schemas at start-up without waiting for the rate. */
    public static final int DEFAULT_BURST = 100;
    /** Beyond this the limit protects nothing: a registry answers a few thousand requests a second. */
    static final double MAX_PER_SECOND = 10_000;
    static final int MAX_BURST = 10_000;

    public static RegistryLookupsConfig defaults() {
        return new RegistryLookupsConfig(DEFAULT_PER_SECOND, DEFAULT_BURST);
    }

    @JsonCreator
    static RegistryLookupsConfig fromYaml(@JsonProperty("perSecond") Double perSecond, @JsonProperty("burst") Integer burst) {
        return new RegistryLookupsConfig(perSecond == null ? DEFAULT_PER_SECOND : perSecond,
                burst == null ? DEFAULT_BURST : burst);
    }

    void validate(List<String> problems, String path) {
        if (!(perSecond > 0) || perSecond > MAX_PER_SECOND) {
            problems.add(path + ".perSecond: must be above 0 and at most " + (int) MAX_PER_SECOND);
        }
        if (burst < 1 || burst > MAX_BURST) {
            problems.add(path + ".burst: must be between 1 and " + MAX_BURST);
        }
    }
}
