package io.sluice.format.registry;

import java.util.Objects;

import io.micrometer.core.instrument.Tags;

/**
 * Whose registry client and cache these are, as their meters and threads say: the bridge's are
 * {@code sluice.bridge.registry.*} with no tags ({@link #BRIDGE}, what they always were); a proxy filter's are
 * {@code sluice.filter.registry.*} tagged with the filter definition's name ({@link #filter}), so that two filter
 * definitions, each with its own registry section, never share a counter.
 *
 * @param prefix  the meter names' prefix, e.g. {@code sluice.bridge.registry}
 * @param tags    added to every meter
 * @param owner   the lookup threads' name part: {@code sluice-<owner>-schema-lookup}
 */
public record RegistryMeters(String prefix, Tags tags, String owner) {

    public static final RegistryMeters BRIDGE = new RegistryMeters("sluice.bridge.registry", Tags.empty(), "bridge");

    public RegistryMeters {
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(tags, "tags");
        Objects.requireNonNull(owner, "owner");
    }

    /** A proxy filter definition's: {@code sluice.filter.registry.*{filter=<name>}}. */
    public static RegistryMeters filter(String filterName) {
        return new RegistryMeters("sluice.filter.registry", Tags.of("filter", filterName), "filter");
    }

    /** {@code prefix.suffix}. */
    String name(String suffix) {
        return prefix + "." + suffix;
    }
}
