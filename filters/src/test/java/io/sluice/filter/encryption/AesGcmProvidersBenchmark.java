package io.sluice.filter.encryption;

import java.security.Provider;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import org.bouncycastle.crypto.InvalidCipherTextException;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.modes.GCMBlockCipher;
import org.bouncycastle.crypto.modes.GCMModeCipher;
import org.bouncycastle.crypto.params.AEADParameters;
import org.bouncycastle.crypto.params.KeyParameter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * AES-256-GCM of one record with associated data, as {@link RecordCipher} does it, through the JDK's
 * provider, through Bouncy Castle's lightweight API, and through two native providers behind the same JCE API
 * (Amazon Corretto Crypto Provider on AWS-LC, Conscrypt on BoringSSL; linux-x86_64 only, the other methods run
 * anywhere). Decides which the filter uses (see docs/performance.md); run with
 * {@code mvn -pl filters -am test -Dtest=EncryptionBenchmarksTest#compareAesGcmProviders -Dsluice.bench=true}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class AesGcmProvidersBenchmark {

    @Param({ "1024", "16384" })
    public int recordBytes;

    private final byte[] key = new byte[32];
    private final byte[] iv = new byte[12];
    private final byte[] aad = new byte[48];
    private byte[] plaintext;
    private byte[] out;
    private Cipher jce;
    private Cipher accp;
    private Cipher conscrypt;
    private SecretKeySpec jceKey;
    private GCMModeCipher bc;
    private KeyParameter bcKey;

    @Setup
    public void setUp() throws Exception {
        SecureRandom random = new SecureRandom();
        random.nextBytes(key);
        random.nextBytes(aad);
        plaintext = new byte[recordBytes];
        random.nextBytes(plaintext);
        out = new byte[recordBytes + 16];
        jce = Cipher.getInstance("AES/GCM/NoPadding");
        accp = nativeCipher("com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider");
        conscrypt = nativeCipher("org.conscrypt.OpenSSLProvider");
        jceKey = new SecretKeySpec(key, "AES");
        bc = GCMBlockCipher.newInstance(AESEngine.newInstance());
        bcKey = new KeyParameter(key);
    }

    /**
     * Not registered globally: the benchmark must not change which provider the JVM's other code gets. Null where
     * the provider has no native library for this platform; its benchmark then fails alone.
     */
    private static Cipher nativeCipher(String providerClass) {
        try {
            Provider provider = (Provider) Class.forName(providerClass).getConstructor().newInstance();
            return Cipher.getInstance("AES/GCM/NoPadding", provider);
        }
        catch (Throwable e) {
            return null;
        }
    }

    @Benchmark
    public int jceEncrypt() throws Exception {
        return encrypt(jce);
    }

    @Benchmark
    public int accpEncrypt() throws Exception {
        return encrypt(accp);
    }

    @Benchmark
    public int conscryptEncrypt() throws Exception {
        return encrypt(conscrypt);
    }

    private int encrypt(Cipher cipher) throws Exception {
        if (cipher == null) {
            throw new UnsupportedOperationException("this provider has no native library for this platform");
        }
        // A fresh IV per record, as in production; JCE refuses to reuse one with the same key.
        iv[0]++;
        cipher.init(Cipher.ENCRYPT_MODE, jceKey, new GCMParameterSpec(128, iv));
        cipher.updateAAD(aad);
        return cipher.doFinal(plaintext, 0, plaintext.length, out, 0);
    }

    @Benchmark
    public int bouncyCastleEncrypt() throws InvalidCipherTextException {
        iv[0]++;
        bc.init(true, new AEADParameters(bcKey, 128, iv.clone(), aad));
        int n = bc.processBytes(plaintext, 0, plaintext.length, out, 0);
        return n + bc.doFinal(out, n);
    }
}
