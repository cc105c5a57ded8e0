package io.sluice.kms.vault.standin;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import javax.net.ssl.SSLContext;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;

import io.sluice.testkit.HttpStandIn;

/**
 * An in-process stand-in for Vault that speaks the real HTTP API for what the KMS uses: Transit keys (create, read,
 * rotate), data keys and decryption with real AES-256-GCM and a key per version ({@code vault:vN:base64(nonce ||
 * ciphertext || tag)}), tokens with TTLs that really expire, AppRole login, token renewal and lookup, namespaces
 * ({@code X-Vault-Namespace}), and ACL policies for the paths it serves. Error responses have Vault's shapes: 403
 * {@code {"errors":["permission denied"]}}, 400 "encryption key not found", 404 for a missing key.
 *
 * <p>Tests can make it unavailable (503 as when sealed), slow ({@link #latency}), or stop it and start it again on the
 * same port (its keys, tokens and roles kept); {@link #requests(String)} counts per route: {@code datakey},
 * {@code decrypt}, {@code keys.read}, {@code login}, ... (the server half is {@link HttpStandIn}'s).
 *
 * <p>It is not a KMS (its keys live in this JVM's memory and die with it), and not in the KMS jar: a module of its own
 * (kms/vault-stand-in) rather than the KMS's test sources because {@code sluice bench scenario kroxylicious-omb} uses
 * it as the proxy's Vault when no real one is given ({@code VAULT_ADDR}): the proxy's KMS calls are then real HTTP round trips to a Transit API, and each route's
 * request count ({@link #requests}) is the KMS's own view of how many calls a benchmark made.
 */
public final class VaultTransitStandIn extends HttpStandIn {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern CIPHERTEXT = Pattern.compile("vault:v(\\d+):(.*)");
    private static final long NO_EXPIRY = Long.MAX_VALUE;

    private final SecureRandom random = new SecureRandom();
    private final String rootToken = "root-" + UUID.randomUUID();
    private final Map<String, Token> tokens = new ConcurrentHashMap<>();
    private final Set<String> transitMounts = ConcurrentHashMap.newKeySet();
    private final Set<String> appRoleMounts = ConcurrentHashMap.newKeySet();
    private final Map<String, TransitKey> keys = new ConcurrentHashMap<>();
    private final Map<String, Role> roles = new ConcurrentHashMap<>();
    private final Map<String, StandInPolicy> policies = new ConcurrentHashMap<>();
    private volatile boolean sealed;

    private VaultTransitStandIn(SSLContext tls) {
        super("vault-stand-in", tls);
        transitMounts.add("transit");
        appRoleMounts.add("approle");
        tokens.put(rootToken, new Token(rootToken, List.of("root"), 0, NO_EXPIRY, NO_EXPIRY, false, null));
    }

    /** Plain http on 127.0.0.1, any free port. */
    public static VaultTransitStandIn start() throws IOException {
        VaultTransitStandIn standIn = new VaultTransitStandIn(null);
        standIn.listen(0);
        return standIn;
    }

    /** https on 127.0.0.1 with this server context. */
    public static VaultTransitStandIn startHttps(SSLContext serverContext) throws IOException {
        VaultTransitStandIn standIn = new VaultTransitStandIn(serverContext);
        standIn.listen(0);
        return standIn;
    }

    public String rootToken() {
        return rootToken;
    }

    /** Answers every request with 503, as a sealed Vault does, until told otherwise. */
    public void sealed(boolean sealed) {
        this.sealed = sealed;
    }

    /** Every token it has issued or knows, the root token included: for checking that none reaches a log. */
    public java.util.Set<String> tokens() {
        return java.util.Set.copyOf(tokens.keySet());
    }

    // ---- HTTP ----

    @Override
    protected void handle(HttpExchange exchange) throws IOException {
        Reply reply;
        try {
            reply = sealed ? Reply.error(503, "Vault is sealed") : route(exchange);
        }
        catch (RuntimeException e) {
            reply = Reply.error(500, "internal error: " + e);
        }
        // Exactly this content type: the Vault driver compares the whole header.
        send(exchange, reply.status, "application/json", reply.body == null ? new byte[0] : JSON.writeValueAsBytes(reply.body));
    }

    private Reply route(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        if (!path.startsWith("/v1/")) {
            return Reply.error(404, "no handler for route \"" + path + "\"");
        }
        String rest = path.substring(4);
        String method = exchange.getRequestMethod();
        byte[] raw = exchange.getRequestBody().readAllBytes();
        JsonNode body = raw.length == 0 ? JSON.createObjectNode() : JSON.readTree(raw);
        String namespace = namespace(exchange.getRequestHeaders().getFirst("X-Vault-Namespace"));
        boolean read = method.equals("GET");

        // Logins are the only calls without a token.
        for (String mount : appRoleMounts) {
            if (rest.equals("auth/" + mount + "/login") && !read) {
                count("login");
                return appRoleLogin(body);
            }
        }
        Token token = tokens.get(String.valueOf(exchange.getRequestHeaders().getFirst("X-Vault-Token")));
        if (token == null || token.expired(System.nanoTime())) {
            count("denied");
            return Reply.error(403, "permission denied");
        }
        if (!token.allows(rest, read ? "read" : "update")) {
            count("denied");
            return Reply.error(403, "permission denied");
        }
        if (rest.equals("auth/token/lookup-self")) {
            count("lookup-self");
            return lookupSelf(token);
        }
        if (rest.equals("auth/token/renew-self") && !read) {
            count("renew-self");
            return renewSelf(token, body);
        }
        if (rest.equals("auth/token/create") && !read) {
            count("token-create");
            return createToken(body);
        }
        if (rest.startsWith("sys/")) {
            return sys(rest.substring(4), method, body);
        }
        if (rest.startsWith("auth/")) {
            return appRoleAdmin(rest.substring(5), read, body);
        }
        for (String mount : transitMounts) {
            if (rest.startsWith(mount + "/")) {
                return transit(namespace, mount, rest.substring(mount.length() + 1), read, body);
            }
        }
        return Reply.error(404, "no handler for route \"" + rest + "\"");
    }

    private static String namespace(String header) {
        return header == null ? "" : header.replaceAll("^/+|/+$", "");
    }

    // ---- Transit ----

    private Reply transit(String namespace, String mount, String path, boolean read, JsonNode body) {
        String[] parts = path.split("/");
        String scope = namespace + "|" + mount + "|";
        if (parts.length == 2 && parts[0].equals("keys")) {
            String id = scope + parts[1];
            if (read) {
                count("keys.read");
                TransitKey key = keys.get(id);
                return key == null ? Reply.errors(404) : Reply.data(key.describe(parts[1]));
            }
            count("keys.create");
            keys.computeIfAbsent(id, k -> new TransitKey(randomKey()));
            return Reply.noContent();
        }
        if (parts.length == 3 && parts[0].equals("keys") && parts[2].equals("rotate") && !read) {
            count("keys.rotate");
            TransitKey key = keys.get(scope + parts[1]);
            if (key == null) {
                return Reply.error(400, "encryption key not found");
            }
            key.rotate(randomKey());
            return Reply.data(key.describe(parts[1]));
        }
        if (parts.length == 3 && parts[0].equals("datakey") && !read) {
            count("datakey");
            TransitKey key = keys.get(scope + parts[2]);
            if (key == null) {
                return Reply.error(400, "encryption key not found");
            }
            int bits = body.path("bits").asInt(256);
            if (bits != 128 && bits != 256 && bits != 512) {
                return Reply.error(400, "invalid bits given");
            }
            byte[] plaintext = new byte[bits / 8];
            random.nextBytes(plaintext);
            ObjectNode data = JSON.createObjectNode();
            if (parts[1].equals("plaintext")) {
                data.put("plaintext", Base64.getEncoder().encodeToString(plaintext));
            }
            else if (!parts[1].equals("wrapped")) {
                return Reply.error(400, "invalid type");
            }
            int version = key.latest();
            data.put("ciphertext", encrypt(key.version(version), version, plaintext));
            data.put("key_version", version);
            return Reply.data(data);
        }
        if (parts.length == 2 && parts[0].equals("decrypt") && !read) {
            count("decrypt");
            TransitKey key = keys.get(scope + parts[1]);
            if (key == null) {
                return Reply.error(400, "encryption key not found");
            }
            Matcher m = CIPHERTEXT.matcher(body.path("ciphertext").asText(""));
            if (!m.matches()) {
                return Reply.error(400, "invalid ciphertext: no prefix");
            }
            int version = Integer.parseInt(m.group(1));
            if (version < 1 || version > key.latest()) {
                return Reply.error(400, "invalid key version");
            }
            try {
                byte[] sealedBytes = Base64.getDecoder().decode(m.group(2));
                Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
                cipher.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key.version(version), "AES"), new GCMParameterSpec(128, sealedBytes, 0, 12));
                byte[] plaintext = cipher.doFinal(sealedBytes, 12, sealedBytes.length - 12);
                ObjectNode data = JSON.createObjectNode().put("plaintext", Base64.getEncoder().encodeToString(plaintext));
                return Reply.data(data);
            }
            catch (GeneralSecurityException | IllegalArgumentException e) {
                return Reply.error(400, "cipher: message authentication failed");
            }
        }
        return Reply.error(405, "unsupported operation");
    }

    private String encrypt(byte[] key, int version, byte[] plaintext) {
        try {
            byte[] nonce = new byte[12];
            random.nextBytes(nonce);
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce));
            byte[] sealedBytes = cipher.doFinal(plaintext);
            byte[] out = ByteBuffer.allocate(nonce.length + sealedBytes.length).put(nonce).put(sealedBytes).array();
            return "vault:v" + version + ":" + Base64.getEncoder().encodeToString(out);
        }
        catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private byte[] randomKey() {
        byte[] key = new byte[32];
        random.nextBytes(key);
        return key;
    }

    // ---- sys ----

    private Reply sys(String path, String method, JsonNode body) {
        if (path.startsWith("mounts/") && !method.equals("GET")) {
            String mount = path.substring("mounts/".length()).replaceAll("/+$", "");
            if (!body.path("type").asText("").equals("transit")) {
                return Reply.error(400, "the stand-in only mounts transit");
            }
            return transitMounts.add(mount) ? Reply.noContent() : Reply.error(400, "path is already in use at " + mount + "/");
        }
        if (path.startsWith("auth/") && !method.equals("GET")) {
            String mount = path.substring("auth/".length()).replaceAll("/+$", "");
            if (!body.path("type").asText("").equals("approle")) {
                return Reply.error(400, "the stand-in only enables approle");
            }
            return appRoleMounts.add(mount) ? Reply.noContent() : Reply.error(400, "path is already in use at auth/" + mount + "/");
        }
        if (path.startsWith("policies/acl/") && !method.equals("GET")) {
            policies.put(path.substring("policies/acl/".length()), new StandInPolicy(body.path("policy").asText("")));
            return Reply.noContent();
        }
        return Reply.error(404, "no handler for route \"sys/" + path + "\"");
    }

    // ---- tokens and AppRole ----

    private Reply appRoleAdmin(String path, boolean read, JsonNode body) {
        String[] parts = path.split("/");
        if (parts.length < 3 || !appRoleMounts.contains(parts[0]) || !parts[1].equals("role")) {
            return Reply.error(404, "no handler for route \"auth/" + path + "\"");
        }
        String roleKey = parts[0] + "|" + parts[2];
        if (parts.length == 3 && !read) {
            List<String> rolePolicies = new ArrayList<>();
            JsonNode p = body.path("token_policies");
            if (p.isArray()) {
                p.forEach(n -> rolePolicies.add(n.asText()));
            }
            else if (p.isTextual()) {
                rolePolicies.addAll(List.of(p.asText().split(",")));
            }
            Role previous = roles.get(roleKey);
            roles.put(roleKey, new Role(previous != null ? previous.roleId : UUID.randomUUID().toString(),
                    seconds(body.path("token_ttl"), 3600), seconds(body.path("token_max_ttl"), 0), rolePolicies,
                    previous != null ? previous.secretIds : ConcurrentHashMap.newKeySet()));
            return Reply.noContent();
        }
        Role role = roles.get(roleKey);
        if (role == null) {
            return Reply.error(400, "invalid role name");
        }
        if (parts.length == 4 && parts[3].equals("role-id") && read) {
            return Reply.data(JSON.createObjectNode().put("role_id", role.roleId));
        }
        if (parts.length == 4 && parts[3].equals("secret-id") && !read) {
            String secretId = UUID.randomUUID().toString();
            role.secretIds.add(secretId);
            return Reply.data(JSON.createObjectNode().put("secret_id", secretId).put("secret_id_accessor", UUID.randomUUID().toString()));
        }
        return Reply.error(405, "unsupported operation");
    }

    private Reply appRoleLogin(JsonNode body) {
        String roleId = body.path("role_id").asText("");
        String secretId = body.path("secret_id").asText("");
        Role role = roles.values().stream().filter(r -> r.roleId.equals(roleId)).findFirst().orElse(null);
        if (role == null || !role.secretIds.contains(secretId)) {
            return Reply.error(400, "invalid role or secret ID");
        }
        long now = System.nanoTime();
        long maxExpiry = role.tokenMaxTtl > 0 ? now + Duration.ofSeconds(role.tokenMaxTtl).toNanos() : NO_EXPIRY;
        List<String> tokenPolicies = new ArrayList<>(List.of("default"));
        tokenPolicies.addAll(role.policies);
        Token token = new Token("hvs." + UUID.randomUUID(), tokenPolicies, role.tokenTtl,
                Math.min(maxExpiry, now + Duration.ofSeconds(role.tokenTtl).toNanos()), maxExpiry, true, null);
        tokens.put(token.id, token);
        return Reply.auth(token.auth(now));
    }

    private Reply createToken(JsonNode body) {
        List<String> tokenPolicies = new ArrayList<>();
        body.path("policies").forEach(n -> tokenPolicies.add(n.asText()));
        if (!body.path("no_default_policy").asBoolean(false)) {
            tokenPolicies.add(0, "default");
        }
        long ttl = seconds(body.path("ttl"), 3600);
        long now = System.nanoTime();
        Token token = new Token("hvs." + UUID.randomUUID(), tokenPolicies, ttl, now + Duration.ofSeconds(ttl).toNanos(), NO_EXPIRY,
                body.path("renewable").asBoolean(true), null);
        tokens.put(token.id, token);
        return Reply.auth(token.auth(now));
    }

    private Reply renewSelf(Token token, JsonNode body) {
        if (!token.renewable) {
            return Reply.error(400, "lease is not renewable");
        }
        long now = System.nanoTime();
        long increment = body.path("increment").asLong(-1) > 0 ? body.path("increment").asLong() : token.ttlSeconds;
        long newExpiry = Math.min(token.maxExpiry, now + Duration.ofSeconds(increment).toNanos());
        Token renewed = token.renewedUntil(newExpiry, Instant.now().getEpochSecond());
        tokens.put(token.id, renewed);
        return Reply.auth(renewed.auth(now));
    }

    private Reply lookupSelf(Token token) {
        long now = System.nanoTime();
        ObjectNode data = JSON.createObjectNode();
        data.put("id", token.id);
        data.put("accessor", "accessor-" + token.id.hashCode());
        data.put("creation_time", Instant.now().getEpochSecond());
        data.put("creation_ttl", token.ttlSeconds);
        data.put("display_name", "token");
        data.put("explicit_max_ttl", 0);
        data.put("num_uses", 0);
        data.put("orphan", true);
        data.put("path", "auth/token/create");
        data.set("policies", strings(token.policies));
        data.put("renewable", token.renewable);
        data.put("ttl", token.remainingSeconds(now));
        data.put("type", "service");
        if (token.lastRenewal != null) {
            data.put("last_renewal_time", token.lastRenewal);
        }
        return Reply.data(data);
    }

    private static long seconds(JsonNode node, long otherwise) {
        if (node.isNumber()) {
            return node.asLong();
        }
        if (node.isTextual()) {
            String text = node.asText().strip();
            if (text.endsWith("s")) {
                return Long.parseLong(text.substring(0, text.length() - 1));
            }
            if (text.endsWith("m")) {
                return 60 * Long.parseLong(text.substring(0, text.length() - 1));
            }
            return Long.parseLong(text);
        }
        return otherwise;
    }

    private static ArrayNode strings(List<String> values) {
        ArrayNode array = JSON.createArrayNode();
        values.forEach(array::add);
        return array;
    }

    // ---- state ----

    private final class Token {
        final String id;
        final List<String> policies;
        final long ttlSeconds;
        final long expiry;
        final long maxExpiry;
        final boolean renewable;
        final Long lastRenewal;

        Token(String id, List<String> policies, long ttlSeconds, long expiry, long maxExpiry, boolean renewable, Long lastRenewal) {
            this.id = id;
            this.policies = policies;
            this.ttlSeconds = ttlSeconds;
            this.expiry = expiry;
            this.maxExpiry = maxExpiry;
            this.renewable = renewable;
            this.lastRenewal = lastRenewal;
        }

        boolean expired(long now) {
            return expiry != NO_EXPIRY && now - expiry >= 0;
        }

        long remainingSeconds(long now) {
            return expiry == NO_EXPIRY ? 0 : Math.max(0, Duration.ofNanos(expiry - now).toSeconds());
        }

        boolean allows(String path, String capability) {
            if (policies.contains("root")) {
                return true;
            }
            if (StandInPolicy.defaultPolicy().allows(path, capability)) {
                return true;
            }
            Map<String, StandInPolicy> defined = VaultTransitStandIn.this.policies;
            return policies.stream().map(defined::get).anyMatch(p -> p != null && p.allows(path, capability));
        }

        Token renewedUntil(long newExpiry, long at) {
            return new Token(id, policies, ttlSeconds, newExpiry, maxExpiry, renewable, at);
        }

        ObjectNode auth(long now) {
            ObjectNode auth = JSON.createObjectNode();
            auth.put("client_token", id);
            auth.put("accessor", "accessor-" + id.hashCode());
            auth.set("policies", strings(policies));
            auth.set("token_policies", strings(policies));
            auth.set("metadata", JSON.createObjectNode());
            auth.put("lease_duration", remainingSeconds(now));
            auth.put("renewable", renewable);
            auth.put("entity_id", "");
            auth.put("token_type", "service");
            auth.put("orphan", true);
            return auth;
        }
    }

    private record Role(String roleId, long tokenTtl, long tokenMaxTtl, List<String> policies, Set<String> secretIds) {
    }

    private static final class TransitKey {
        private final List<byte[]> versions = new ArrayList<>();
        private final long created = Instant.now().getEpochSecond();

        TransitKey(byte[] first) {
            versions.add(first);
        }

        synchronized int latest() {
            return versions.size();
        }

        synchronized byte[] version(int version) {
            return versions.get(version - 1);
        }

        synchronized void rotate(byte[] next) {
            versions.add(next);
        }

        synchronized ObjectNode describe(String name) {
            ObjectNode data = JSON.createObjectNode();
            data.put("name", name);
            data.put("type", "aes256-gcm96");
            data.put("latest_version", versions.size());
            data.put("min_decryption_version", 1);
            data.put("min_encryption_version", 0);
            data.put("deletion_allowed", false);
            data.put("exportable", false);
            data.put("supports_encryption", true);
            data.put("supports_decryption", true);
            data.put("supports_derivation", true);
            ObjectNode versionTimes = data.putObject("keys");
            for (int i = 1; i <= versions.size(); i++) {
                versionTimes.put(Integer.toString(i), created);
            }
            return data;
        }
    }

    /** A response: status and Vault's JSON envelope. */
    private record Reply(int status, JsonNode body) {

        static Reply data(ObjectNode data) {
            return new Reply(200, envelope(data, NullNode.getInstance()));
        }

        static Reply auth(ObjectNode auth) {
            return new Reply(200, envelope(NullNode.getInstance(), auth));
        }

        static Reply noContent() {
            return new Reply(204, null);
        }

        static Reply error(int status, String message) {
            ObjectNode body = JSON.createObjectNode();
            body.putArray("errors").add(message);
            return new Reply(status, body);
        }

        /** Vault's "not found": no message at all. */
        static Reply errors(int status) {
            ObjectNode body = JSON.createObjectNode();
            body.putArray("errors");
            return new Reply(status, body);
        }

        private static ObjectNode envelope(JsonNode data, JsonNode auth) {
            ObjectNode body = JSON.createObjectNode();
            body.put("request_id", UUID.randomUUID().toString());
            body.put("lease_id", "");
            body.put("renewable", false);
            body.put("lease_duration", 0);
            body.set("data", data);
            body.set("wrap_info", NullNode.getInstance());
            body.set("warnings", NullNode.getInstance());
            body.set("auth", auth);
            return body;
        }
    }

    @Override
    public String toString() {
        return "VaultTransitStandIn[" + url() + "]";
    }
}
