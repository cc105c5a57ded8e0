package io.sluice.filter.policy;

import io.sluice.auth.NamePattern;

/** Reading the config's fields with errors that name them: name patterns ({@link NamePattern}) and counts. */
final class ConfigFields {

    private ConfigFields() {
    }

    static NamePattern pattern(String pattern, String path) {
        try {
            return NamePattern.compile(pattern);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(path + ": " + e.getMessage(), e);
        }
    }

    /** A count that must be at least 1 when given; 0 for absent. */
    static int atLeastOne(Integer value, String path) {
        if (value == null) {
            return 0;
        }
        if (value < 1) {
            throw new IllegalArgumentException(path + ": must be at least 1, not " + value);
        }
        return value;
    }
}
