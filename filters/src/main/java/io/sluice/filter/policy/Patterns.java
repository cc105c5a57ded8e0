package io.sluice.filter.policy;

import io.sluice.auth.NamePattern;

/** Compiling the config's name patterns ({@link NamePattern}: {@code *}, {@code ?}, {@code \}) with errors naming the field. */
final class Patterns {

    private Patterns() {
    }

    static NamePattern compile(String pattern, String path) {
        try {
            return NamePattern.compile(pattern);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(path + ": " + e.getMessage(), e);
        }
    }
}
