package io.sluice.kms.vault;

import java.io.IOException;
import java.nio.file.Path;

import io.github.jopenlibs.vault.VaultException;
import io.github.jopenlibs.vault.response.AuthResponse;

/** Logs in with AppRole through the Vault driver; the secret id file, if any, is read at each login. */
final class AppRoleLogin implements VaultCredentials {

    private final AppRole appRole;

    AppRoleLogin(AppRole appRole) {
        this.appRole = appRole;
    }

    @Override
    public VaultLogin login(VaultDriver driver) throws VaultException, IOException {
        String secretId = appRole.secretIdFile() != null ? StaticToken.read(Path.of(appRole.secretIdFile())) : appRole.secretId();
        AuthResponse response = driver.auth(null).loginByAppRole(appRole.mount(), appRole.roleId(), secretId);
        String token = response.getAuthClientToken();
        if (token == null || token.isEmpty()) {
            throw new VaultException("AppRole login answered without a token", response.getRestResponse().getStatus());
        }
        return new VaultLogin(token, response.getAuthLeaseDuration(), response.isAuthRenewable());
    }

    @Override
    public boolean canReplaceToken() {
        return true;
    }

    @Override
    public String toString() {
        return "AppRole login at auth/" + appRole.mount();
    }
}
