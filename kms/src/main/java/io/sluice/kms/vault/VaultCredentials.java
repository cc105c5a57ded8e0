package io.sluice.kms.vault;

import java.io.IOException;

import io.github.jopenlibs.vault.VaultException;

/** Where tokens come from. {@link #login} blocks and runs on the auth thread only. */
interface VaultCredentials {

    /** A token; for kinds that cannot tell, its TTL is unknown ({@link VaultLogin#UNKNOWN_TTL}). */
    VaultLogin login(VaultDriver driver) throws VaultException, IOException;

    /** Whether calling {@link #login} again may give a different, valid token (AppRole, a token file). */
    boolean canReplaceToken();

    /** A token and what Vault said about its lifetime. */
    record VaultLogin(String token, long ttlSeconds, boolean renewable) {

        static final long UNKNOWN_TTL = -1;

        @Override
        public String toString() {
            return "VaultLogin[ttl=" + ttlSeconds + "s, renewable=" + renewable + "]";
        }
    }
}
