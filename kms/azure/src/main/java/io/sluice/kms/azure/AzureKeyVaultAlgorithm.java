package io.sluice.kms.azure;

import com.azure.security.keyvault.keys.cryptography.models.KeyWrapAlgorithm;

import io.sluice.kms.KmsException;

/** The key-wrap algorithms the provider offers, with the byte that names each in an {@link AzureWrappedKey}. */
enum AzureKeyVaultAlgorithm {
    /** RSA-OAEP with SHA-256 and MGF1-SHA-256: RSA keys in Key Vault or Managed HSM. */
    RSA_OAEP_256((byte) 1, "RSA-OAEP-256", KeyWrapAlgorithm.RSA_OAEP_256),
    /** AES key wrap (RFC 3394) with a 256-bit key: AES keys in Managed HSM. */
    A256KW((byte) 2, "A256KW", KeyWrapAlgorithm.A256KW);

    private final byte id;
    private final String configName;
    private final KeyWrapAlgorithm sdk;

    AzureKeyVaultAlgorithm(byte id, String configName, KeyWrapAlgorithm sdk) {
        this.id = id;
        this.configName = configName;
        this.sdk = sdk;
    }

    byte id() {
        return id;
    }

    KeyWrapAlgorithm sdk() {
        return sdk;
    }

    static AzureKeyVaultAlgorithm of(byte id) {
        for (AzureKeyVaultAlgorithm a : values()) {
            if (a.id == id) {
                return a;
            }
        }
        throw new KmsException("not an Azure Key Vault wrapped key: unknown algorithm " + id);
    }

    /** @throws IllegalArgumentException naming the {@code algorithm} field */
    static AzureKeyVaultAlgorithm named(String name) {
        for (AzureKeyVaultAlgorithm a : values()) {
            if (a.configName.equals(name.strip())) {
                return a;
            }
        }
        throw new IllegalArgumentException("algorithm: '" + name + "' is not RSA-OAEP-256 or A256KW");
    }

    @Override
    public String toString() {
        return configName;
    }
}
