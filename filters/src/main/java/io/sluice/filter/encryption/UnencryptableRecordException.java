package io.sluice.filter.encryption;

/**
 * A record the encrypted value's layout cannot hold: a length or count past what its field can express (see
 * {@link PlaintextLayout} and {@link EncryptedValue}). Written anyway, the field would be cut to its low bits and the
 * value would never decrypt again, failing its partition for every reader; so such a record is refused at produce.
 * The message names the field, the size and the bound, never record contents.
 *
 * <p>An {@link IllegalArgumentException}, so that wherever a decrypt path meets one it is a malformed record like any
 * other.</p>
 */
final class UnencryptableRecordException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    UnencryptableRecordException(String message) {
        super(message);
    }

    /** Refuses {@code length} when its field, {@code field} in the encrypted layout, holds at most {@code max}. */
    static int checkLength(String field, long length, long max) {
        if (length > max) {
            throw new UnencryptableRecordException(field + " of " + length + " bytes; the encrypted record format holds at most " + max);
        }
        return (int) length;
    }
}
