package io.sluice.kms.inprocess;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsService;
import io.sluice.kms.metrics.MeteredKms;

/** {@code kms: InProcessKmsService}: KEKs in the proxy's own memory, for the demo and tests. Never for real data. */
public final class InProcessKmsService implements KmsService<InProcessKmsConfig> {

    private static final Logger LOG = LoggerFactory.getLogger(InProcessKmsService.class);

    @Override
    public Class<InProcessKmsConfig> configType() {
        return InProcessKmsConfig.class;
    }

    @Override
    public Kms create(InProcessKmsConfig config, MeterRegistry registry) {
        if (config == null || config.keys().isEmpty() && config.keyFile() == null) {
            throw new IllegalArgumentException("keys: name the KEKs to generate, or give a keyFile");
        }
        Set<String> seen = new HashSet<>();
        for (String name : config.keys()) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("keys: a KEK name must not be empty");
            }
            if (!seen.add(name)) {
                throw new IllegalArgumentException("keys: '" + name + "' is listed twice");
            }
        }
        InProcessKms kms;
        if (config.keyFile() == null) {
            kms = InProcessKms.generate(config.keys());
        }
        else {
            try {
                kms = InProcessKms.load(Path.of(config.keyFile()));
            }
            catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("keyFile: " + e.getMessage(), e);
            }
            boolean generated = false;
            for (String name : config.keys()) {
                generated |= kms.createKey(name);
            }
            if (generated) {
                // Otherwise the next start generates different KEKs, and what was encrypted with these cannot be read.
                try {
                    kms.save(Path.of(config.keyFile()));
                }
                catch (IOException e) {
                    throw new IllegalArgumentException("keyFile: cannot write the KEKs generated for " + config.keys() + " to it: " + e, e);
                }
            }
        }
        LOG.warn("In-process KMS: KEKs {} live in this process; use it for demos and tests only", kms);
        return new MeteredKms(kms, "inprocess", registry);
    }
}
