package io.sluice.kms.inprocess;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.sluice.kms.AesKey;
import io.sluice.kms.DataKey;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsException;
import io.sluice.kms.KmsForbiddenException;
import io.sluice.kms.UnknownKeyException;
import io.sluice.kms.WrappedKey;

/**
 * KEKs held in this process, for the demo and tests. It behaves like Vault Transit where it matters: versioned KEKs,
 * rotation, wrapped keys that carry their KEK version ({@code inprocess:v2:<base64>}), and KEKs that can be disabled
 * (refused with {@link KmsForbiddenException} until enabled again, as a cloud KMS refuses a disabled key). KEKs exist
 * only in memory unless {@link #save saved}; anyone who can read the heap or the key file can read every record.
 *
 * <p>Calls complete before they return; nothing blocks.
 */
public final class InProcessKms implements Kms {

    private static final String PREFIX = "inprocess:v";
    private static final Pattern WRAPPED = Pattern.compile("inprocess:v(\\d{1,9}):([A-Za-z0-9+/=]+)");
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final int KEY_BYTES = 32;

    private final Map<String, List<AesKey>> keks = new ConcurrentHashMap<>();
    private final Set<String> disabled = ConcurrentHashMap.newKeySet();
    private final SecureRandom random = new SecureRandom();

    private InProcessKms() {
    }

    /** A KMS with one fresh random KEK (version 1) for each name. */
    public static InProcessKms generate(Collection<String> names) {
        InProcessKms kms = new InProcessKms();
        names.forEach(kms::createKey);
        return kms;
    }

    /**
     * A KMS with the KEKs in a key file: a JSON object from KEK name to the base64 AES-256 keys of its versions,
     * oldest first, as written by {@link #save}.
     *
     * @throws IllegalArgumentException if the file is missing or malformed
     */
    public static InProcessKms load(Path keyFile) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(Files.readString(keyFile, StandardCharsets.UTF_8));
        }
        catch (NoSuchFileException e) {
            throw new IllegalArgumentException("'" + keyFile + "' does not exist", e);
        }
        catch (IOException e) {
            throw new IllegalArgumentException("'" + keyFile + "' cannot be read as JSON: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("'" + keyFile + "' must hold a JSON object from KEK name to a list of base64 keys");
        }
        InProcessKms kms = new InProcessKms();
        for (Map.Entry<String, JsonNode> entry : root.properties()) {
            kms.keks.put(entry.getKey(), versions(keyFile, entry.getKey(), entry.getValue()));
        }
        return kms;
    }

    private static List<AesKey> versions(Path keyFile, String name, JsonNode node) {
        if (!node.isArray() || node.isEmpty()) {
            throw new IllegalArgumentException("'" + keyFile + "': " + name + " must be a non-empty list of base64 keys");
        }
        List<AesKey> versions = new CopyOnWriteArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            byte[] material = null;
            try {
                material = Base64.getDecoder().decode(node.get(i).asText(""));
                if (material.length != KEY_BYTES) {
                    throw new IllegalArgumentException("not " + KEY_BYTES + " bytes");
                }
                versions.add(AesKey.copyOf(material));
            }
            catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("'" + keyFile + "': " + name + " version " + (i + 1) + " is not a base64 AES-256 key", e);
            }
            finally {
                if (material != null) {
                    Arrays.fill(material, (byte) 0);
                }
            }
        }
        return versions;
    }

    /**
     * Creates a KEK with one random version; does nothing if it exists.
     *
     * @return whether the KEK was created
     */
    public boolean createKey(String name) {
        boolean[] created = {false};
        keks.computeIfAbsent(name, n -> {
            List<AesKey> versions = new CopyOnWriteArrayList<>();
            versions.add(randomKey());
            created[0] = true;
            return versions;
        });
        return created[0];
    }

    /**
     * Adds a version to a KEK. New data keys are wrapped with it; keys wrapped by older versions still unwrap.
     *
     * @return the new version number
     */
    public int rotate(String name) {
        List<AesKey> versions = keks.get(name);
        if (versions == null) {
            throw new UnknownKeyException("no KEK named '" + name + "'");
        }
        synchronized (versions) {
            versions.add(randomKey());
            return versions.size();
        }
    }

    /** Refuses every use of the KEK (resolve, new data keys, unwraps) until {@link #enable}d; its versions are kept. */
    public void disable(String name) {
        if (!keks.containsKey(name)) {
            throw new UnknownKeyException("no KEK named '" + name + "'");
        }
        disabled.add(name);
    }

    /** Undoes {@link #disable}. */
    public void enable(String name) {
        disabled.remove(name);
    }

    /** Writes every KEK to a key file readable by {@link #load}, readable by the owner only where the OS allows. */
    public void save(Path keyFile) throws IOException {
        ObjectNode root = new ObjectMapper().createObjectNode();
        keks.forEach((name, versions) -> {
            ArrayNode list = root.putArray(name);
            for (AesKey version : versions) {
                byte[] material = version.getEncoded();
                list.add(Base64.getEncoder().encodeToString(material));
                Arrays.fill(material, (byte) 0);
            }
        });
        Path tmp = keyFile.resolveSibling(keyFile.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        try {
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        catch (UnsupportedOperationException e) {
            Files.createFile(tmp);
        }
        Files.writeString(tmp, root.toPrettyString(), StandardCharsets.UTF_8);
        Files.move(tmp, keyFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    @Override
    public CompletionStage<KekRef> resolveKek(String name) {
        List<AesKey> versions = keks.get(name);
        if (versions == null) {
            return CompletableFuture.failedFuture(unknown(name));
        }
        if (disabled.contains(name)) {
            return CompletableFuture.failedFuture(disabled(name));
        }
        return CompletableFuture.completedFuture(new KekRef(name, versions.size()));
    }

    @Override
    public CompletionStage<DataKey> generateDataKey(KekRef kek) {
        List<AesKey> versions = keks.get(kek.name());
        if (versions == null) {
            return CompletableFuture.failedFuture(unknown(kek.name()));
        }
        if (disabled.contains(kek.name())) {
            return CompletableFuture.failedFuture(disabled(kek.name()));
        }
        int version;
        AesKey wrappingKey;
        synchronized (versions) {
            version = versions.size();
            wrappingKey = versions.get(version - 1);
        }
        byte[] plaintext = new byte[KEY_BYTES];
        random.nextBytes(plaintext);
        try {
            byte[] nonce = new byte[NONCE_BYTES];
            random.nextBytes(nonce);
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, wrappingKey, new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(kek.name().getBytes(StandardCharsets.UTF_8));
            byte[] sealed = cipher.doFinal(plaintext);
            String text = PREFIX + version + ":" + Base64.getEncoder().encodeToString(
                    ByteBuffer.allocate(nonce.length + sealed.length).put(nonce).put(sealed).array());
            WrappedKey wrapped = new WrappedKey(kek.name(), text.getBytes(StandardCharsets.US_ASCII));
            return CompletableFuture.completedFuture(new DataKey(new KekRef(kek.name(), version), AesKey.copyOf(plaintext), wrapped));
        }
        catch (GeneralSecurityException e) {
            return CompletableFuture.failedFuture(new KmsException("cannot wrap a data key with " + kek.name() + ": " + e, e));
        }
        finally {
            Arrays.fill(plaintext, (byte) 0);
        }
    }

    @Override
    public CompletionStage<SecretKey> unwrap(WrappedKey wrapped) {
        List<AesKey> versions = keks.get(wrapped.kekName());
        if (versions == null) {
            return CompletableFuture.failedFuture(unknown(wrapped.kekName()));
        }
        if (disabled.contains(wrapped.kekName())) {
            return CompletableFuture.failedFuture(disabled(wrapped.kekName()));
        }
        Matcher m = WRAPPED.matcher(wrapped.ciphertextText());
        if (!m.matches()) {
            return CompletableFuture.failedFuture(new KmsException("not an in-process wrapped key for " + wrapped.kekName()));
        }
        int version = Integer.parseInt(m.group(1));
        List<AesKey> snapshot = new ArrayList<>(versions);
        if (version < 1 || version > snapshot.size()) {
            return CompletableFuture.failedFuture(new UnknownKeyException("KEK " + wrapped.kekName() + " has no version " + version));
        }
        byte[] plaintext = null;
        try {
            byte[] sealed = Base64.getDecoder().decode(m.group(2));
            if (sealed.length <= NONCE_BYTES) {
                throw new KmsException("wrapped key for " + wrapped.kekName() + " is truncated");
            }
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, snapshot.get(version - 1), new GCMParameterSpec(TAG_BITS, sealed, 0, NONCE_BYTES));
            cipher.updateAAD(wrapped.kekName().getBytes(StandardCharsets.UTF_8));
            plaintext = cipher.doFinal(sealed, NONCE_BYTES, sealed.length - NONCE_BYTES);
            return CompletableFuture.completedFuture(AesKey.copyOf(plaintext));
        }
        catch (GeneralSecurityException | IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new KmsException("cannot unwrap a key with " + wrapped.kekName() + " v" + version
                    + ": not wrapped by this KEK or corrupt"));
        }
        catch (KmsException e) {
            return CompletableFuture.failedFuture(e);
        }
        finally {
            if (plaintext != null) {
                Arrays.fill(plaintext, (byte) 0);
            }
        }
    }

    /** Wipes the KEKs. */
    @Override
    public void close() {
        keks.values().forEach(versions -> versions.forEach(AesKey::destroy));
        keks.clear();
    }

    private AesKey randomKey() {
        byte[] material = new byte[KEY_BYTES];
        random.nextBytes(material);
        try {
            return AesKey.copyOf(material);
        }
        finally {
            Arrays.fill(material, (byte) 0);
        }
    }

    private static KmsForbiddenException disabled(String name) {
        return new KmsForbiddenException("KEK '" + name + "' is disabled");
    }

    private static UnknownKeyException unknown(String name) {
        return new UnknownKeyException("no KEK named '" + name + "'");
    }

    @Override
    public String toString() {
        return "InProcessKms" + keks.keySet();
    }
}
