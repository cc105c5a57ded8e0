package io.sluice.filter.encryption;

import java.security.GeneralSecurityException;
import java.security.Provider;

import javax.crypto.Cipher;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider;

/**
 * Which implementation of AES-GCM the filter's ciphers come from. Both speak the JCE API and the same AES-GCM, so
 * records written through one are read through the other. ACCP (Amazon Corretto Crypto Provider, AWS-LC) spent a
 * fifth less of the proxy's CPU per MB than the JDK's own in {@code ./sluice bench encryption} (docs/performance.md);
 * its native library ships for linux-x86_64 only, so elsewhere the JDK's is used. It is never registered with the
 * JVM: only these ciphers use it.
 */
public enum AesGcmProvider {

    /** ACCP where its native library loads and passes its self-tests, else the JDK's. */
    AUTO,
    /** The JDK's own (SunJCE), everywhere. */
    JCE,
    /** ACCP, or the filter fails to start saying why it cannot load. */
    ACCP;

    private static final Logger LOG = LoggerFactory.getLogger(AesGcmProvider.class);
    private static final String TRANSFORMATION = "AES/GCM/NoPadding";

    /**
     * The provider to take ciphers from: null for the JDK's default lookup.
     *
     * @throws IllegalArgumentException for ACCP when it cannot be used here, naming the field and the reason
     */
    public Provider resolve() {
        if (this == JCE) {
            return null;
        }
        String problem = accpProblem();
        if (problem == null) {
            return AmazonCorrettoCryptoProvider.INSTANCE;
        }
        if (this == ACCP) {
            throw new IllegalArgumentException("aesGcmProvider: ACCP cannot be used on this machine: " + problem);
        }
        LOG.info("AES-GCM from the JDK (SunJCE): ACCP is not available here ({})", problem);
        return null;
    }

    static Cipher newCipher(Provider provider) {
        try {
            return provider == null ? Cipher.getInstance(TRANSFORMATION) : Cipher.getInstance(TRANSFORMATION, provider);
        }
        catch (GeneralSecurityException e) {
            throw new IllegalStateException("no " + TRANSFORMATION + " from " + (provider == null ? "the JVM" : provider.getName()), e);
        }
    }

    /** Null when ACCP's native library loaded and its self-tests passed; else why not. */
    private static String accpProblem() {
        try {
            Throwable loading = AmazonCorrettoCryptoProvider.INSTANCE.getLoadingError();
            if (loading != null) {
                return loading.toString();
            }
            AmazonCorrettoCryptoProvider.INSTANCE.assertHealthy();
            return null;
        }
        catch (LinkageError | RuntimeException e) {
            return e.toString();
        }
    }
}
