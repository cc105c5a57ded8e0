package io.sluice.kms.azure;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.regex.Pattern;

import io.sluice.kms.KmsException;

/**
 * The ciphertext of a data key wrapped by Key Vault, as Sluice stores it: the key version that wrapped it (so that a
 * rotated key still unwraps what its old versions wrapped), the algorithm, and Key Vault's wrapped bytes.
 * Layout: format byte {@code 1}, algorithm byte, version length byte, version (ASCII), wrapped bytes.
 * Every length is checked before use: a record's wrapped key is whatever its writer chose.
 */
record AzureWrappedKey(String version, AzureKeyVaultAlgorithm algorithm, byte[] wrapped) {

    private static final byte FORMAT = 1;
    /** Key Vault's versions are 32 hex digits; a little room for other forms, never unbounded. */
    private static final Pattern VERSION = Pattern.compile("[A-Za-z0-9-]{1,64}");
    /** RSA-4096 gives 512 bytes; A256KW of 32 bytes gives 40. */
    private static final int MAX_WRAPPED = 1024;

    AzureWrappedKey {
        if (!VERSION.matcher(version).matches()) {
            throw new KmsException("not an Azure Key Vault key version: '" + version + "'");
        }
        if (wrapped.length == 0 || wrapped.length > MAX_WRAPPED) {
            throw new KmsException("an Azure Key Vault wrapped key has 1 to " + MAX_WRAPPED + " bytes, not " + wrapped.length);
        }
    }

    byte[] toBytes() {
        byte[] v = version.getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocate(3 + v.length + wrapped.length).put(FORMAT).put(algorithm.id()).put((byte) v.length).put(v).put(wrapped).array();
    }

    /** @throws KmsException if these bytes are not such a key (corrupt, or another provider's) */
    static AzureWrappedKey parse(byte[] bytes) {
        if (bytes.length < 4 || bytes[0] != FORMAT) {
            throw new KmsException("not an Azure Key Vault wrapped key: unknown format");
        }
        AzureKeyVaultAlgorithm algorithm = AzureKeyVaultAlgorithm.of(bytes[1]);
        int versionLength = Byte.toUnsignedInt(bytes[2]);
        if (versionLength == 0 || bytes.length <= 3 + versionLength) {
            throw new KmsException("not an Azure Key Vault wrapped key: bad length");
        }
        String version = new String(bytes, 3, versionLength, StandardCharsets.US_ASCII);
        return new AzureWrappedKey(version, algorithm, Arrays.copyOfRange(bytes, 3 + versionLength, bytes.length));
    }

    @Override
    public String toString() {
        return "AzureWrappedKey[version=" + version + ", " + algorithm + ", " + wrapped.length + " bytes]";
    }
}
