package io.sluice.filter.encryption;

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
 * provider and through Bouncy Castle's lightweight API. Decides which the filter uses (see
 * docs/performance.md); run with {@code mvn -pl filters -am test -Dtest=EncryptionBenchmarksTest#compareJceAndBouncyCastle -Dsluice.bench=true}.
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
        jceKey = new SecretKeySpec(key, "AES");
        bc = GCMBlockCipher.newInstance(AESEngine.newInstance());
        bcKey = new KeyParameter(key);
    }

    @Benchmark
    public int jceEncrypt() throws Exception {
        // A fresh IV per record, as in production; JCE refuses to reuse one with the same key.
        iv[0]++;
        jce.init(Cipher.ENCRYPT_MODE, jceKey, new GCMParameterSpec(128, iv));
        jce.updateAAD(aad);
        return jce.doFinal(plaintext, 0, plaintext.length, out, 0);
    }

    @Benchmark
    public int bouncyCastleEncrypt() throws InvalidCipherTextException {
        iv[0]++;
        bc.init(true, new AEADParameters(bcKey, 128, iv.clone(), aad));
        int n = bc.processBytes(plaintext, 0, plaintext.length, out, 0);
        return n + bc.doFinal(out, n);
    }
}
