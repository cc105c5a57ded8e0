package io.sluice.kms;

import java.util.Objects;

/**
 * A key-encryption key as the KMS names it.
 *
 * @param name the KEK's name in the KMS, e.g. {@code kek-orders}
 * @param version the KEK version this reference was made with: the latest version when returned by
 *        {@link Kms#resolveKek}, the wrapping version in {@link DataKey#kek()}. Informational; the KMS always wraps
 *        new data keys with its latest version, and a wrapped key names its own version.
 */
public record KekRef(String name, int version) {

    public KekRef {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a KEK name must not be empty");
        }
    }
}
