package io.sluice.kms.vault.standin;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import javax.net.ssl.SSLContext;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What an operator does to Vault before the proxy can use it, over Vault's HTTP API with a root token: enable Transit
 * and AppRole, create and rotate keys, write policies, make roles and tokens. The same calls work on the stand-in and
 * on a real Vault. For tests and benchmarks: the KMS never calls these.
 */
public final class VaultAdmin {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final String url;
    private final String rootToken;
    private final String namespace;

    public VaultAdmin(String url, String rootToken, String namespace, SSLContext ssl) {
        this.http = HttpClient.newBuilder().sslContext(ssl).version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
        this.url = url;
        this.rootToken = rootToken;
        this.namespace = namespace;
    }

    /** The same, acting in another namespace. */
    public VaultAdmin inNamespace(String other, SSLContext ssl) {
        return new VaultAdmin(url, rootToken, other, ssl);
    }

    public void enableTransit(String mount) {
        JsonNode reply = call("POST", "sys/mounts/" + mount, JSON.createObjectNode().put("type", "transit"), true);
        expectOkOrInUse(reply);
    }

    public void enableAppRole() {
        JsonNode reply = call("POST", "sys/auth/approle", JSON.createObjectNode().put("type", "approle"), true);
        expectOkOrInUse(reply);
    }

    public void createKey(String mount, String name) {
        call("POST", mount + "/keys/" + name, JSON.createObjectNode(), false);
    }

    public void rotate(String mount, String name) {
        call("POST", mount + "/keys/" + name + "/rotate", JSON.createObjectNode(), false);
    }

    public void writePolicy(String name, String hcl) {
        call("PUT", "sys/policies/acl/" + name, JSON.createObjectNode().put("policy", hcl), false);
    }

    public void createRole(String role, Duration tokenTtl, Duration tokenMaxTtl, String policy) {
        ObjectNode body = JSON.createObjectNode()
                .put("token_ttl", tokenTtl.toSeconds() + "s")
                .put("token_max_ttl", tokenMaxTtl.toSeconds() + "s");
        body.putArray("token_policies").add(policy);
        call("POST", "auth/approle/role/" + role, body, false);
    }

    public String roleId(String role) {
        return call("GET", "auth/approle/role/" + role + "/role-id", null, false).path("data").path("role_id").asText();
    }

    public String newSecretId(String role) {
        return call("POST", "auth/approle/role/" + role + "/secret-id", JSON.createObjectNode(), false).path("data").path("secret_id").asText();
    }

    /** A token with these policies (plus default), as {@code vault token create} makes it. */
    public String createToken(Duration ttl, List<String> policies) {
        ObjectNode body = JSON.createObjectNode().put("ttl", ttl.toSeconds() + "s").put("renewable", true);
        policies.forEach(body.putArray("policies")::add);
        return call("POST", "auth/token/create", body, false).path("auth").path("client_token").asText();
    }

    private static void expectOkOrInUse(JsonNode reply) {
        int status = reply.path("status").asInt();
        if (status >= 300 && !reply.path("errors").toString().contains("already in use")) {
            throw new IllegalStateException("Vault said " + reply);
        }
    }

    /** The reply's JSON, with its status added as {@code status}; fails on an error status unless {@code lenient}. */
    private JsonNode call(String method, String path, JsonNode body, boolean lenient) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + "/v1/" + path))
                .timeout(Duration.ofSeconds(10))
                .header("X-Vault-Token", rootToken)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body.toString()));
        if (namespace != null) {
            request.header("X-Vault-Namespace", namespace);
        }
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            ObjectNode reply = response.body().isBlank() ? JSON.createObjectNode() : (ObjectNode) JSON.readTree(response.body());
            reply.put("status", response.statusCode());
            if (response.statusCode() >= 300 && !lenient) {
                throw new IllegalStateException(method + " " + path + ": Vault said " + response.statusCode() + " " + response.body());
            }
            return reply;
        }
        catch (IOException e) {
            throw new IllegalStateException(method + " " + path + ": " + e, e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
