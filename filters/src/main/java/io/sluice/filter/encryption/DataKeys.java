package io.sluice.filter.encryption;

import java.util.List;
import java.util.concurrent.CompletionStage;

import javax.crypto.SecretKey;

/**
 * Where the filter gets data keys: a live key per KEK for encrypting, and unwrapped keys for decrypting.
 * Implemented over the KMS module's caches; stages may complete on any thread.
 */
public interface DataKeys {

    /** A plaintext data key and its wrapped form. */
    record DataKey(SecretKey key, byte[] wrapped) {
        @Override
        public String toString() {
            return "DataKey[wrapped " + wrapped.length + " bytes]";
        }
    }

    /**
     * Keys to encrypt {@code records} more records with under {@code kekName}: the i-th record uses key
     * {@code i / recordsPerKey()}. Fails with {@link UnknownKekException} when the KMS has no such KEK,
     * {@link KekRefusedException} when it has one but refuses its use (disabled, pending deletion, access denied, or any
     * other definite error), {@link KeysUnavailableException} when it cannot be reached.
     */
    CompletionStage<List<DataKey>> forEncryption(String kekName, int records);

    /** How many records one data key may encrypt. */
    int recordsPerKey();

    /** The plaintext of a wrapped data key; fails like {@link #forEncryption}. */
    CompletionStage<SecretKey> forDecryption(String kekName, byte[] wrapped);

    /** The KMS has no KEK of that name: the only failure {@code unresolvedKek: PASSTHROUGH} may write plaintext for. */
    final class UnknownKekException extends RuntimeException {
        public UnknownKekException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * The KMS has the KEK (or will not say whether it does) and refuses to use it: disabled, pending deletion, access
     * denied, or another definite error. Never "no key configured": a topic whose KEK is refused is never written in
     * plaintext, whatever {@code unresolvedKek} says.
     */
    final class KekRefusedException extends RuntimeException {
        public KekRefusedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The KMS cannot be reached or failed; retrying later may succeed. */
    final class KeysUnavailableException extends RuntimeException {
        public KeysUnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
