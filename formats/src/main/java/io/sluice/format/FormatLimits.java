package io.sluice.format;

/**
 * Bounds every codec applies, so that no record and no published value can make the bridge recurse or allocate beyond
 * what its size justifies.
 *
 * @param maxDepth         deepest nesting of objects/arrays (records, arrays, maps, messages) a value may have, both
 *                         decoded and published; the bridge's request parser already refuses requests nested deeper than
 *                         64, so this default matches it
 * @param maxParsedSchemas parsed schemas each codec keeps (by registry id); least recently used ones are parsed again
 * @param maxReferences    schemas a registered schema may pull in through references (transitively), so a reference
 *                         cycle or a huge import graph costs bounded registry calls
 */
public record FormatLimits(int maxDepth, int maxParsedSchemas, int maxReferences) {

    public static final int DEFAULT_MAX_DEPTH = 64;
    public static final int DEFAULT_MAX_PARSED_SCHEMAS = 1000;
    public static final int DEFAULT_MAX_REFERENCES = 100;

    public FormatLimits {
        if (maxDepth < 1 || maxParsedSchemas < 1 || maxReferences < 0) {
            throw new IllegalArgumentException("format limits must be positive");
        }
    }

    public static FormatLimits defaults() {
        return new FormatLimits(DEFAULT_MAX_DEPTH, DEFAULT_MAX_PARSED_SCHEMAS, DEFAULT_MAX_REFERENCES);
    }
}
