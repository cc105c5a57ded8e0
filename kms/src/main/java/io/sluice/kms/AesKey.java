package io.sluice.kms;

import java.io.IOException;
import java.io.NotSerializableException;
import java.io.ObjectOutputStream;
import java.util.Arrays;

import javax.crypto.SecretKey;

/**
 * An AES key that can really be destroyed: the JDK's {@code SecretKeySpec} cannot (its {@code destroy} throws), so its
 * bytes would stay in the heap until overwritten by chance.
 *
 * <p>After {@link #destroy()}, {@link #getEncoded()} throws {@link IllegalStateException}, so using a destroyed key
 * fails loudly instead of encrypting with zeros. Equality is identity, so that hash codes say nothing about the key.
 */
public final class AesKey implements SecretKey {

    private static final long serialVersionUID = 1L;

    private final byte[] material;
    private volatile boolean destroyed;

    private AesKey(byte[] material) {
        this.material = material;
    }

    /**
     * A key with a copy of these bytes (16, 24 or 32 of them). The caller still owns {@code material} and should wipe
     * it.
     */
    public static AesKey copyOf(byte[] material) {
        if (material.length != 16 && material.length != 24 && material.length != 32) {
            throw new IllegalArgumentException("an AES key has 16, 24 or 32 bytes, not " + material.length);
        }
        return new AesKey(material.clone());
    }

    /**
     * The AES-256 key a KMS answered with, for providers: a copy of {@code plaintext}, which is then wiped.
     *
     * @param source names the KMS and the KEK in the error, e.g. {@code "Vault's key for kek-orders"}
     * @throws KmsException unless {@code plaintext} has 32 bytes (null included); it is wiped either way
     */
    public static AesKey aes256From(byte[] plaintext, String source) {
        try {
            if (plaintext == null || plaintext.length != 32) {
                throw new KmsException(source + " is " + (plaintext == null ? "missing" : plaintext.length * 8 + " bits") + ", expected 256");
            }
            return new AesKey(plaintext.clone());
        }
        finally {
            wipe(plaintext);
        }
    }

    /** Zeroes a buffer that held key material; null does nothing. */
    public static void wipe(byte[] material) {
        if (material != null) {
            Arrays.fill(material, (byte) 0);
        }
    }

    @Override
    public String getAlgorithm() {
        return "AES";
    }

    @Override
    public String getFormat() {
        return "RAW";
    }

    /** A copy of the key bytes; the JDK's ciphers call this once in {@code init}. */
    @Override
    public byte[] getEncoded() {
        if (destroyed) {
            throw new IllegalStateException("the key has been destroyed");
        }
        byte[] copy = material.clone();
        // A destroy racing the clone must not hand out a half-wiped key.
        if (destroyed) {
            Arrays.fill(copy, (byte) 0);
            throw new IllegalStateException("the key has been destroyed");
        }
        return copy;
    }

    /** The key length in bits. */
    public int bits() {
        return material.length * 8;
    }

    @Override
    public void destroy() {
        destroyed = true;
        Arrays.fill(material, (byte) 0);
    }

    @Override
    public boolean isDestroyed() {
        return destroyed;
    }

    @Override
    public boolean equals(Object o) {
        return this == o;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }

    @Override
    public String toString() {
        return "AesKey[" + bits() + " bits" + (destroyed ? ", destroyed]" : "]");
    }

    /** Key material does not travel by Java serialization. */
    private void writeObject(ObjectOutputStream out) throws IOException {
        throw new NotSerializableException(AesKey.class.getName());
    }
}
