package io.sluice.kms.vault;

/**
 * How the Vault KMS gets its token. Exactly one field is set.
 *
 * @param token the token itself (use the proxy's {@code ${env:...}} substitution rather than writing it in the file)
 * @param tokenFile a file holding the token, as Vault Agent writes it; read again when Vault refuses the token
 * @param tokenEnv the name of an environment variable holding the token, read at start
 * @param appRole log in with AppRole; the token is renewed before it expires and replaced by a new login when it can no
 *        longer be renewed
 */
public record VaultAuth(String token, String tokenFile, String tokenEnv, AppRole appRole) {

    /** Never the token. */
    @Override
    public String toString() {
        if (token != null) {
            return "VaultAuth[token=******]";
        }
        if (tokenFile != null) {
            return "VaultAuth[tokenFile=" + tokenFile + "]";
        }
        if (tokenEnv != null) {
            return "VaultAuth[tokenEnv=" + tokenEnv + "]";
        }
        return "VaultAuth[" + appRole + "]";
    }
}
