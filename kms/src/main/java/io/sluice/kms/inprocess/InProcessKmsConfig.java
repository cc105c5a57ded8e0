package io.sluice.kms.inprocess;

import java.util.List;

/**
 * Configuration of the in-process KMS.
 *
 * @param keys KEK names to generate at start (random, version 1, gone when the process ends)
 * @param keyFile a key file to load KEKs from (see {@link InProcessKms#load}); together with {@code keys}, names in
 *        {@code keys} that the file lacks are generated and written to it, so that they survive a restart
 */
public record InProcessKmsConfig(List<String> keys, String keyFile) {

    public InProcessKmsConfig {
        keys = keys == null ? List.of() : List.copyOf(keys);
    }
}
