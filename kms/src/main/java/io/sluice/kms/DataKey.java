package io.sluice.kms;

import java.util.Objects;

import javax.crypto.SecretKey;
import javax.security.auth.DestroyFailedException;
import javax.security.auth.Destroyable;

/**
 * A fresh data-encryption key: the plaintext AES-256 key to encrypt with, and the same key wrapped by a KEK to store
 * beside the ciphertext.
 *
 * <p>Whoever owns a {@code DataKey} destroys it when done; {@link io.sluice.kms.cache.KeyCache} owns the ones it hands
 * out. {@link #toString()} never shows the plaintext.
 */
public final class DataKey implements Destroyable {

    private final KekRef kek;
    private final SecretKey key;
    private final WrappedKey wrapped;

    /**
     * @param kek the KEK and the version of it that wrapped this key
     * @param key the plaintext key, preferably an {@link AesKey} so that {@link #destroy()} wipes it
     * @param wrapped the wrapped form of {@code key}
     */
    public DataKey(KekRef kek, SecretKey key, WrappedKey wrapped) {
        this.kek = Objects.requireNonNull(kek, "kek");
        this.key = Objects.requireNonNull(key, "key");
        this.wrapped = Objects.requireNonNull(wrapped, "wrapped");
    }

    public KekRef kek() {
        return kek;
    }

    /** The plaintext key (AES). Throws from {@code getEncoded()} once destroyed. */
    public SecretKey key() {
        return key;
    }

    public WrappedKey wrapped() {
        return wrapped;
    }

    /** Wipes the plaintext key. Keys that cannot be wiped (not {@link AesKey}) are left to the garbage collector. */
    @Override
    public void destroy() {
        try {
            if (!key.isDestroyed()) {
                key.destroy();
            }
        }
        catch (DestroyFailedException e) {
            // SecretKeySpec and friends cannot be wiped; nothing more can be done here.
        }
    }

    @Override
    public boolean isDestroyed() {
        return key.isDestroyed();
    }

    @Override
    public String toString() {
        return "DataKey[kek=" + kek.name() + " v" + kek.version() + ", " + wrapped + (isDestroyed() ? ", destroyed]" : "]");
    }
}
