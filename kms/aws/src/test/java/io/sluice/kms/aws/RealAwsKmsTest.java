package io.sluice.kms.aws;

import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.kms.DataKey;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsException;
import io.sluice.kms.UnknownKeyException;
import io.sluice.kms.WrappedKey;

import static io.sluice.kms.aws.AwsKmsMotoTest.failure;
import static io.sluice.kms.aws.AwsKmsMotoTest.join;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The provider against AWS KMS itself, when {@code SLUICE_AWS_KMS_KEY_ID} names a symmetric key (id, ARN or alias)
 * and the SDK's default chain finds credentials allowed the docs' policy on it ({@code AWS_ACCESS_KEY_ID} and
 * {@code AWS_SECRET_ACCESS_KEY}, a profile, ...) and {@code AWS_REGION} is set; skipped otherwise, saying why. Optional:
 * {@code SLUICE_AWS_KMS_DISABLED_KEY_ID}, a disabled key, for the refusal moto does not make.
 */
class RealAwsKmsTest {

    private static final Map<String, String> ENV = System.getenv();
    private Kms kms;

    @BeforeEach
    void requireAws() {
        String why = ENV.get("SLUICE_AWS_KMS_KEY_ID") == null ? "SLUICE_AWS_KMS_KEY_ID is not set"
                : ENV.get("AWS_REGION") == null && ENV.get("AWS_DEFAULT_REGION") == null ? "AWS_REGION is not set" : null;
        if (why != null) {
            System.out.println("RealAwsKmsTest against AWS skipped: " + why
                    + " (set it, AWS_REGION and credentials for the default chain to run the AWS KMS provider against AWS)");
        }
        assumeTrue(why == null, why);
        kms = new AwsKmsService().create(new AwsKmsConfig(null, null, null, null, null), new SimpleMeterRegistry());
    }

    @Test
    void roundTripsAndRefusesWhatAwsRefuses() {
        String key = ENV.get("SLUICE_AWS_KMS_KEY_ID");
        try {
            DataKey dataKey = join(kms.generateDataKey(join(kms.resolveKek(key))));
            assertThat(join(kms.unwrap(WrappedKey.parse(dataKey.wrapped().toBytes()))).getEncoded()).isEqualTo(dataKey.key().getEncoded());
            byte[] flipped = dataKey.wrapped().ciphertext();
            flipped[flipped.length - 1] ^= 1;
            assertThat(failure(kms.unwrap(new WrappedKey(key, flipped))).isRetriable()).isFalse();
            assertThat(failure(kms.resolveKek("alias/sluice-it-absent-" + System.nanoTime()))).isInstanceOf(UnknownKeyException.class);
            String disabled = ENV.get("SLUICE_AWS_KMS_DISABLED_KEY_ID");
            if (disabled != null) {
                KmsException refused = failure(kms.generateDataKey(new KekRef(disabled, 1)));
                assertThat(refused.isRetriable()).isFalse();
            }
        }
        finally {
            kms.close();
        }
    }
}
