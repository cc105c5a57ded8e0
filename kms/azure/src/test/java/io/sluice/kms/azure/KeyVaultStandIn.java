package io.sluice.kms.azure;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.MGF1ParameterSpec;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import javax.crypto.Cipher;
import javax.crypto.spec.OAEPParameterSpec;
import javax.crypto.spec.PSource;
import javax.net.ssl.SSLContext;

import com.azure.core.credential.AccessToken;
import com.azure.core.credential.TokenCredential;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;

import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import reactor.core.publisher.Mono;

/**
 * An in-process Azure Key Vault for tests, speaking the documented REST API over TLS (the SDK refuses plain http for
 * bearer tokens), since no Key Vault emulator is served by a registry here (Lowkey Vault is not on the Maven mirror).
 * In: the SDK's requests. Out: Key Vault's answers, with real RSA-OAEP-256 (RSA-2048 keys) wrapping.
 *
 * <ul>
 *   <li>{@code GET /keys/{name}[/{version}]}: the key bundle ({@code key.kid}, {@code kty}, {@code n}, {@code e},
 *       {@code attributes.enabled}); the latest version without one.</li>
 *   <li>{@code POST /keys/{name}[/{version}]/wrapkey} and {@code /unwrapkey} with {@code {"alg","value"}}: the
 *       answer's {@code kid} names the version used; base64url values.</li>
 *   <li>Authentication as Key Vault does it: a request without a bearer token gets {@code 401} with
 *       {@code WWW-Authenticate: Bearer authorization="...", resource="https://vault.azure.net"}, the challenge the
 *       SDK's credential policy expects before it asks for a token; a wrong token gets 401 too.</li>
 *   <li>Errors as Key Vault's JSON {@code {"error":{"code","message"}}}: 404 {@code KeyNotFound}, 403 {@code Forbidden}
 *       for a disabled key, 400 {@code BadParameter} for a ciphertext the key did not make.</li>
 * </ul>
 * Operators' actions (create, disable, enable, rotate) are methods: what the portal or the CLI would do. Public, in this
 * module's test-jar, for kms/end-to-end.
 */
public final class KeyVaultStandIn implements AutoCloseable {

    static final String TOKEN = "stand-in-token-" + UUID.randomUUID();
    /** What Microsoft Entra ID would hand out: the stand-in's token (Entra ID cannot run here). */
    public static final TokenCredential CREDENTIAL = request -> Mono.just(new AccessToken(TOKEN, OffsetDateTime.now().plusHours(1)));
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder B64D = Base64.getUrlDecoder();
    private static final int MAX_BODY = 64 * 1024;

    private final HttpsServer server;
    private final Path caPem;
    private final Map<String, List<Version>> keys = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    private record Version(String id, KeyPair pair, boolean[] enabled) {
    }

    public KeyVaultStandIn(Path dir) throws Exception {
        X509Bundle ca = new CertificateBuilder().subject("CN=Key Vault Stand-in CA").setIsCertificateAuthority(true).ecp256().buildSelfSigned();
        X509Bundle cert = new CertificateBuilder().subject("CN=localhost").addSanDnsName("localhost").addSanIpAddress("127.0.0.1")
                .addExtendedKeyUsageServerAuth().ecp256().buildIssuedBy(ca);
        caPem = Files.writeString(dir.resolve("keyvault-ca.pem"), ca.getCertificatePEM());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(cert.toKeyManagerFactory().getKeyManagers(), null, null);
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        server.setExecutor(Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "keyvault-stand-in");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/", this::handle);
        server.start();
    }

    public String url() {
        return "https://127.0.0.1:" + server.getAddress().getPort();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public Path caPem() {
        return caPem;
    }

    /** Requests by operation ({@code wrapkey}, {@code unwrapkey}, {@code get}), authenticated or not. */
    int calls(String operation) {
        AtomicInteger n = calls.get(operation);
        return n == null ? 0 : n.get();
    }

    public void createKey(String name) throws Exception {
        keys.computeIfAbsent(name, k -> new ArrayList<>());
        rotate(name);
    }

    /** A new current version: what {@code az keyvault key rotate} does. */
    String rotate(String name) throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        Version v = new Version(UUID.randomUUID().toString().replace("-", ""), generator.generateKeyPair(), new boolean[] { true });
        List<Version> versions = keys.get(name);
        synchronized (versions) {
            versions.add(v);
        }
        return v.id();
    }

    /** Disables every version, as {@code az keyvault key set-attributes --enabled false} does for the key. */
    public void setEnabled(String name, boolean enabled) {
        List<Version> versions = keys.get(name);
        synchronized (versions) {
            versions.forEach(v -> v.enabled()[0] = enabled);
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String[] path = exchange.getRequestURI().getPath().replaceAll("/+", "/").replaceAll("^/|/$", "").split("/");
            String operation = path.length >= 3 && (path[path.length - 1].equals("wrapkey") || path[path.length - 1].equals("unwrapkey"))
                    ? path[path.length - 1] : "get";
            calls.computeIfAbsent(operation, k -> new AtomicInteger()).incrementAndGet();
            byte[] body = readBody(exchange.getRequestBody());
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            if (auth == null || !auth.equals("Bearer " + TOKEN)) {
                exchange.getResponseHeaders().add("WWW-Authenticate",
                        "Bearer authorization=\"https://login.microsoftonline.com/00000000-0000-0000-0000-000000000000\", resource=\"https://vault.azure.net\"");
                send(exchange, 401, error("Unauthorized", "AKV10000: Request is missing a Bearer or PoP token."));
                return;
            }
            if (path.length < 2 || !path[0].equals("keys")) {
                send(exchange, 404, error("NotFound", "no such path"));
                return;
            }
            String name = path[1];
            String versionId = operation.equals("get") ? (path.length > 2 ? path[2] : null) : (path.length > 3 ? path[2] : null);
            List<Version> versions = keys.get(name);
            Version version = null;
            if (versions != null) {
                synchronized (versions) {
                    version = versionId == null ? versions.get(versions.size() - 1)
                            : versions.stream().filter(v -> v.id().equals(versionId)).findFirst().orElse(null);
                }
            }
            if (version == null) {
                send(exchange, 404, error("KeyNotFound", "A key with (name/id) " + name + (versionId == null ? "" : "/" + versionId) + " was not found in this key vault."));
                return;
            }
            String kid = url() + "/keys/" + name + "/" + version.id();
            if (operation.equals("get")) {
                RSAPublicKey pub = (RSAPublicKey) version.pair().getPublic();
                ObjectNode bundle = JSON.createObjectNode();
                ObjectNode key = bundle.putObject("key");
                key.put("kid", kid).put("kty", "RSA").put("n", B64.encodeToString(unsigned(pub.getModulus().toByteArray())))
                        .put("e", B64.encodeToString(unsigned(pub.getPublicExponent().toByteArray())));
                key.putArray("key_ops").add("wrapKey").add("unwrapKey");
                bundle.putObject("attributes").put("enabled", version.enabled()[0]).put("created", 1700000000).put("updated", 1700000000)
                        .put("recoveryLevel", "Recoverable+Purgeable");
                send(exchange, 200, bundle);
                return;
            }
            if (!version.enabled()[0]) {
                send(exchange, 403, error("Forbidden", "Operation " + (operation.equals("wrapkey") ? "wrapKey" : "unwrapKey") + " is not allowed on a disabled key."));
                return;
            }
            JsonNode request = JSON.readTree(body);
            if (!"RSA-OAEP-256".equals(request.path("alg").asText())) {
                send(exchange, 400, error("BadParameter", "Invalid algorithm for this key."));
                return;
            }
            byte[] value = B64D.decode(request.path("value").asText());
            Cipher cipher = Cipher.getInstance("RSA/ECB/OAEPPadding");
            OAEPParameterSpec oaep = new OAEPParameterSpec("SHA-256", "MGF1", MGF1ParameterSpec.SHA256, PSource.PSpecified.DEFAULT);
            byte[] out;
            try {
                if (operation.equals("wrapkey")) {
                    cipher.init(Cipher.ENCRYPT_MODE, version.pair().getPublic(), oaep);
                } else {
                    cipher.init(Cipher.DECRYPT_MODE, version.pair().getPrivate(), oaep);
                }
                out = cipher.doFinal(value);
            }
            catch (java.security.GeneralSecurityException e) {
                send(exchange, 400, error("BadParameter", "The parameter is incorrect."));
                return;
            }
            send(exchange, 200, JSON.createObjectNode().put("kid", kid).put("value", B64.encodeToString(out)));
        }
        catch (Exception e) {
            send(exchange, 500, error("InternalServerError", e.toString()));
        }
    }

    private static byte[] unsigned(byte[] bytes) {
        return bytes.length > 1 && bytes[0] == 0 ? java.util.Arrays.copyOfRange(bytes, 1, bytes.length) : bytes;
    }

    private static byte[] readBody(InputStream in) throws IOException {
        byte[] body = in.readNBytes(MAX_BODY + 1);
        if (body.length > MAX_BODY) {
            throw new IOException("body over " + MAX_BODY + " bytes");
        }
        return body;
    }

    private static ObjectNode error(String code, String message) {
        ObjectNode root = JSON.createObjectNode();
        root.putObject("error").put("code", code).put("message", message);
        return root;
    }

    private static void send(HttpExchange exchange, int status, JsonNode body) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
