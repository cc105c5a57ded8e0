package io.sluice.kms.vault;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

import io.sluice.kms.KmsException;
import io.sluice.kms.KmsUnavailableException;

/**
 * Vault's HTTP API, asynchronously, with {@link HttpClient#sendAsync}: no thread waits for Vault. Used for the Transit
 * calls on the hot path; the blocking Vault driver is used only for login and token renewal (see docs/kms.md for why
 * and the measurements).
 */
final class TransitClient {

    private final HttpClient http;
    private final String base;
    private final String namespace;
    private final Duration requestTimeout;

    /**
     * @param vaultUrl without a trailing slash
     * @param mount the Transit mount, without slashes
     */
    TransitClient(HttpClient http, String vaultUrl, String mount, String namespace, Duration requestTimeout) {
        this.http = http;
        this.base = vaultUrl + "/v1/" + mount + "/";
        this.namespace = namespace;
        this.requestTimeout = requestTimeout;
    }

    /**
     * Sends one request. Completes with Vault's reply whatever its status; fails with
     * {@link KmsUnavailableException} when Vault cannot be reached or does not answer in time.
     *
     * @param path below the mount, e.g. {@code keys/kek-orders}; each segment is URL-encoded here
     * @param jsonBody null for a GET
     */
    CompletableFuture<VaultReply> send(String path, String jsonBody, String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + encode(path)))
                .timeout(requestTimeout)
                .header("X-Vault-Token", token)
                .header("X-Vault-Request", "true");
        if (namespace != null) {
            request.header("X-Vault-Namespace", namespace);
        }
        if (jsonBody == null) {
            request.GET();
        }
        else {
            request.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(jsonBody));
        }
        CompletableFuture<HttpResponse<byte[]>> sent;
        try {
            sent = http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        }
        catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.handle((response, failure) -> {
            if (failure != null) {
                throw unreachable(failure);
            }
            return VaultReply.parse(response.statusCode(), response.body());
        });
    }

    private static KmsException unreachable(Throwable failure) {
        Throwable cause = failure.getCause() != null && !(failure instanceof IOException) ? failure.getCause() : failure;
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof CertificateException) {
                // A trust problem is configuration: retrying will not fix it, and saying "unavailable" would hide it.
                return new KmsException("Vault's TLS certificate is not trusted: " + t.getMessage(), cause);
            }
        }
        if (cause instanceof IOException || cause instanceof CancellationException) {
            return new KmsUnavailableException("Vault is unreachable: " + cause, cause);
        }
        return new KmsException("request to Vault failed: " + cause, cause);
    }

    private static String encode(String path) {
        StringBuilder encoded = new StringBuilder();
        for (String segment : path.split("/", -1)) {
            if (encoded.length() > 0) {
                encoded.append('/');
            }
            encoded.append(URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20"));
        }
        return encoded.toString();
    }

    @Override
    public String toString() {
        return "TransitClient[" + base + (namespace != null ? ", namespace " + namespace : "") + "]";
    }
}
