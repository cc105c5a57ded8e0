package io.sluice.kms.vault;

/**
 * What to trust when talking to Vault over https.
 *
 * @param trustStoreFile CA certificates: a PEM bundle, or a PKCS12 or JKS trust store
 * @param trustStorePassword for a PKCS12/JKS store, if it has one
 * @param trustStoreType {@code PEM}, {@code PKCS12} or {@code JKS}; guessed from the file name when absent
 *        ({@code .pem}, {@code .crt}, {@code .cer} are PEM, {@code .jks} is JKS, anything else PKCS12)
 * @param insecure trust any certificate and any host name. For experiments only: anyone on the path can read the keys.
 */
public record VaultTls(String trustStoreFile, String trustStorePassword, String trustStoreType, Boolean insecure) {

    public VaultTls {
        insecure = insecure != null && insecure;
    }

    /** Never the password. */
    @Override
    public String toString() {
        return "VaultTls[trustStoreFile=" + trustStoreFile + ", trustStoreType=" + trustStoreType
                + (trustStorePassword != null ? ", trustStorePassword=******" : "") + ", insecure=" + insecure + "]";
    }
}
