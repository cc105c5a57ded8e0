package io.sluice.kms.gcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import javax.crypto.Cipher;
import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * An in-process Google Cloud KMS for tests, speaking the documented REST API (v1) that google-cloud-kms's HttpJson
 * transport calls, since no Cloud KMS emulator exists (Google ships none; none on PyPI, npm, Debian or Maven Central).
 * In: the client's requests. Out: Cloud KMS's answers, with real AES-256-GCM per key version.
 *
 * <ul>
 *   <li>{@code GET /v1/{cryptoKey}}: the CryptoKey ({@code name}, {@code purpose}, {@code primary.name},
 *       {@code primary.state}).</li>
 *   <li>{@code POST /v1/{cryptoKey}:encrypt} with {@code plaintext} and {@code additionalAuthenticatedData} (base64):
 *       {@code name} (the primary version used) and {@code ciphertext}, which names its version inside, as Cloud
 *       KMS's does, so that {@code :decrypt} needs no version.</li>
 *   <li>Errors as Google's JSON {@code {"error":{"code","message","status"}}}: 404 {@code NOT_FOUND}, 400
 *       {@code FAILED_PRECONDITION} for a disabled version, 400 {@code INVALID_ARGUMENT} for a ciphertext the key did
 *       not make (or other additional data).</li>
 * </ul>
 * Plain http on loopback (the client takes an {@code http://} endpoint). A request without credentials is served (the
 * provider's tests give the client none); one with an {@code Authorization} header must carry the token that
 * {@code POST /token} hands out, Google's OAuth 2.0 token endpoint for a service account's signed JWT, which
 * {@link #serviceAccountKey} points a key file at (so that {@code credentialsFile:} is tested as users write it).
 * Operators' actions (create, disable, enable, rotate) are methods.
 */
public final class CloudKmsStandIn implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_BODY = 64 * 1024;
    private static final String TOKEN = "stand-in-token-" + java.util.UUID.randomUUID();

    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(2);
    private final Map<String, List<Version>> keys = new ConcurrentHashMap<>();
    private final SecureRandom random = new SecureRandom();

    private static final class Version {
        final SecretKey key;
        volatile boolean enabled = true;

        Version(SecretKey key) {
            this.key = key;
        }
    }

    public CloudKmsStandIn() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(executor);
        server.createContext("/v1/", this::handle);
        server.createContext("/token", this::token);
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public void createKey(String name) throws Exception {
        keys.put(name, new ArrayList<>());
        rotate(name);
    }

    /** A new primary version, as {@code gcloud kms keys versions create --primary} makes. */
    int rotate(String name) throws Exception {
        KeyGenerator generator = KeyGenerator.getInstance("AES");
        generator.init(256);
        List<Version> versions = keys.get(name);
        synchronized (versions) {
            versions.add(new Version(generator.generateKey()));
            return versions.size();
        }
    }

    /** Disables (or enables) every version, as {@code gcloud kms keys versions disable} on each. */
    public void setEnabled(String name, boolean enabled) {
        List<Version> versions = keys.get(name);
        synchronized (versions) {
            versions.forEach(v -> v.enabled = enabled);
        }
    }

    /**
     * A service account key file ({@code "type": "service_account"}, a fresh RSA key) whose {@code token_uri} is this
     * stand-in's {@code /token}: what {@code gcloud iam service-accounts keys create} writes, pointed here.
     */
    public Path serviceAccountKey(Path dir) throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        String pem = "-----BEGIN PRIVATE KEY-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(generator.generateKeyPair().getPrivate().getEncoded()) + "\n-----END PRIVATE KEY-----\n";
        ObjectNode key = JSON.createObjectNode().put("type", "service_account").put("project_id", "sluice-test").put("private_key_id", "stand-in")
                .put("private_key", pem).put("client_email", "sluice@sluice-test.iam.gserviceaccount.com").put("client_id", "1")
                .put("token_uri", "http://127.0.0.1:" + port() + "/token");
        return Files.write(dir.resolve("gcp-service-account.json"), JSON.writeValueAsBytes(key));
    }

    private void token(HttpExchange exchange) throws IOException {
        try (exchange) {
            String form = new String(exchange.getRequestBody().readNBytes(MAX_BODY), StandardCharsets.UTF_8);
            if (!form.contains("grant_type=" + java.net.URLEncoder.encode("urn:ietf:params:oauth:grant-type:jwt-bearer", StandardCharsets.UTF_8))) {
                send(exchange, 400, JSON.createObjectNode().put("error", "unsupported_grant_type"));
                return;
            }
            send(exchange, 200, JSON.createObjectNode().put("access_token", TOKEN).put("expires_in", 3600).put("token_type", "Bearer"));
        }
    }

    /** The version named inside one of this stand-in's ciphertexts. */
    static int versionOf(byte[] ciphertext) {
        return ByteBuffer.wrap(ciphertext).getInt();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = URLDecoder.decode(exchange.getRequestURI().getRawPath(), StandardCharsets.UTF_8).substring("/v1/".length());
            byte[] body = exchange.getRequestBody().readNBytes(MAX_BODY + 1);
            if (body.length > MAX_BODY) {
                send(exchange, 400, error(400, "request too large", "INVALID_ARGUMENT"));
                return;
            }
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            if (auth != null && !auth.equals("Bearer " + TOKEN)) {
                send(exchange, 401, error(401, "Request had invalid authentication credentials.", "UNAUTHENTICATED"));
                return;
            }
            String operation = path.endsWith(":encrypt") ? "encrypt" : path.endsWith(":decrypt") ? "decrypt" : "get";
            String name = operation.equals("get") ? path : path.substring(0, path.lastIndexOf(':'));
            List<Version> versions = keys.get(name);
            if (versions == null) {
                send(exchange, 404, error(404, "CryptoKey " + name + " not found.", "NOT_FOUND"));
                return;
            }
            List<Version> snapshot;
            synchronized (versions) {
                snapshot = List.copyOf(versions);
            }
            int primary = snapshot.size();
            switch (operation) {
                case "get" -> {
                    ObjectNode key = JSON.createObjectNode().put("name", name).put("purpose", "ENCRYPT_DECRYPT");
                    key.putObject("primary").put("name", name + "/cryptoKeyVersions/" + primary)
                            .put("state", snapshot.get(primary - 1).enabled ? "ENABLED" : "DISABLED").put("algorithm", "GOOGLE_SYMMETRIC_ENCRYPTION");
                    send(exchange, 200, key);
                }
                case "encrypt" -> {
                    JsonNode request = JSON.readTree(body);
                    Version version = snapshot.get(primary - 1);
                    if (!version.enabled) {
                        send(exchange, 400, error(400, "The request cannot be fulfilled. Resource " + name + "/cryptoKeyVersions/" + primary
                                + " has value DISABLED in field crypto_key_version.state.", "FAILED_PRECONDITION"));
                        return;
                    }
                    byte[] iv = new byte[12];
                    random.nextBytes(iv);
                    Cipher gcm = Cipher.getInstance("AES/GCM/NoPadding");
                    gcm.init(Cipher.ENCRYPT_MODE, version.key, new GCMParameterSpec(128, iv));
                    gcm.updateAAD(bytes(request, "additionalAuthenticatedData"));
                    byte[] sealed = gcm.doFinal(bytes(request, "plaintext"));
                    byte[] ciphertext = ByteBuffer.allocate(4 + 12 + sealed.length).putInt(primary).put(iv).put(sealed).array();
                    send(exchange, 200, JSON.createObjectNode().put("name", name + "/cryptoKeyVersions/" + primary)
                            .put("ciphertext", Base64.getEncoder().encodeToString(ciphertext)).put("protectionLevel", "SOFTWARE"));
                }
                default -> {
                    JsonNode request = JSON.readTree(body);
                    byte[] ciphertext = bytes(request, "ciphertext");
                    int n = ciphertext.length > 4 + 12 + 16 ? versionOf(ciphertext) : 0;
                    if (n < 1 || n > snapshot.size()) {
                        send(exchange, 400, error(400, "Decryption failed: the ciphertext is invalid.", "INVALID_ARGUMENT"));
                        return;
                    }
                    Version version = snapshot.get(n - 1);
                    if (!version.enabled) {
                        send(exchange, 400, error(400, "The request cannot be fulfilled. Resource " + name + "/cryptoKeyVersions/" + n
                                + " has value DISABLED in field crypto_key_version.state.", "FAILED_PRECONDITION"));
                        return;
                    }
                    try {
                        Cipher gcm = Cipher.getInstance("AES/GCM/NoPadding");
                        gcm.init(Cipher.DECRYPT_MODE, version.key, new GCMParameterSpec(128, ciphertext, 4, 12));
                        gcm.updateAAD(bytes(request, "additionalAuthenticatedData"));
                        byte[] plaintext = gcm.doFinal(ciphertext, 16, ciphertext.length - 16);
                        send(exchange, 200, JSON.createObjectNode().put("plaintext", Base64.getEncoder().encodeToString(plaintext))
                                .put("usedPrimary", n == primary).put("protectionLevel", "SOFTWARE"));
                    }
                    catch (java.security.GeneralSecurityException e) {
                        send(exchange, 400, error(400, "Decryption failed: the ciphertext is invalid.", "INVALID_ARGUMENT"));
                    }
                }
            }
        }
        catch (Exception e) {
            send(exchange, 500, error(500, e.toString(), "INTERNAL"));
        }
    }

    private static byte[] bytes(JsonNode request, String field) {
        JsonNode value = request.get(field);
        return value == null ? new byte[0] : Base64.getDecoder().decode(value.asText());
    }

    private static ObjectNode error(int code, String message, String status) {
        ObjectNode root = JSON.createObjectNode();
        root.putObject("error").put("code", code).put("message", message).put("status", status);
        return root;
    }

    private static void send(HttpExchange exchange, int status, JsonNode body) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", "application/json; charset=UTF-8");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
