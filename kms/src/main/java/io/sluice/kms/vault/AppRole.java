package io.sluice.kms.vault;

/**
 * AppRole credentials.
 *
 * @param roleId the role's id (not secret on its own)
 * @param secretId the secret id itself; or
 * @param secretIdFile a file holding it, read at each login so that a rotated secret id is picked up
 * @param mount where the AppRole auth method is mounted (default {@code approle})
 */
public record AppRole(String roleId, String secretId, String secretIdFile, String mount) {

    public static final String DEFAULT_MOUNT = "approle";

    public AppRole {
        mount = mount == null ? DEFAULT_MOUNT : mount;
    }

    /** Never the secret id. */
    @Override
    public String toString() {
        return "AppRole[roleId=" + roleId + ", mount=" + mount
                + (secretIdFile != null ? ", secretIdFile=" + secretIdFile : ", secretId=******") + "]";
    }
}
