package io.sluice.format.registry;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

import io.sluice.config.PasswordSource;

/**
 * Credentials for the registry: exactly one of HTTP basic ({@code {basic: {username, password}}}) or a bearer token
 * ({@code {bearer: {token}}}). Secrets are {@link PasswordSource}s: inline (usually {@code ${ENV}}) or a file read on
 * every request, so a rotated secret is picked up. Nothing here prints a secret.
 */
public record RegistryAuth(Basic basic, Bearer bearer) {

    public static RegistryAuth basic(String username, PasswordSource password) {
        return new RegistryAuth(new Basic(username, password), null);
    }

    public static RegistryAuth bearer(PasswordSource token) {
        return new RegistryAuth(null, new Bearer(token));
    }

    @JsonCreator
    static RegistryAuth fromYaml(@JsonProperty("basic") Basic basic, @JsonProperty("bearer") Bearer bearer) {
        return new RegistryAuth(basic, bearer);
    }

    String kind() {
        return basic != null ? "basic" : bearer != null ? "bearer" : "none";
    }

    void validate(List<String> problems, String path) {
        if ((basic == null) == (bearer == null)) {
            problems.add(path + ": set exactly one of basic or bearer");
            return;
        }
        if (basic != null) {
            if (basic.username() == null || basic.username().isEmpty()) {
                problems.add(path + ".basic.username: is required");
            }
            else if (basic.username().indexOf(':') >= 0) {
                problems.add(path + ".basic.username: must not contain ':' (HTTP basic separates user and password with it)");
            }
            secret(basic.password(), problems, path + ".basic.password");
        }
        else {
            secret(bearer.token(), problems, path + ".bearer.token");
        }
    }

    private static void secret(PasswordSource secret, List<String> problems, String path) {
        if (secret == null || (secret.password() == null) == (secret.passwordFile() == null)) {
            problems.add(path + ": is required (the secret itself, or {passwordFile: ...})");
        }
        else if (secret.password() != null && secret.password().isEmpty()) {
            problems.add(path + ": must not be empty");
        }
    }

    /** HTTP basic authentication. */
    public record Basic(String username, PasswordSource password) {
        @JsonCreator
        static Basic fromYaml(@JsonProperty("username") String username, @JsonProperty("password") PasswordSource password) {
            return new Basic(username, password);
        }

        @Override
        public String toString() {
            return "Basic[username=" + username + ", password=" + password + "]";
        }
    }

    /** A bearer token, e.g. an OAuth access token issued for the bridge. */
    public record Bearer(PasswordSource token) {
        @JsonCreator
        static Bearer fromYaml(@JsonProperty("token") PasswordSource token) {
            return new Bearer(token);
        }

        @Override
        public String toString() {
            return "Bearer[token=" + token + "]";
        }
    }
}
