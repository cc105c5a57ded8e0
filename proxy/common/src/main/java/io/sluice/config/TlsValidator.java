package io.sluice.config;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * Checks the shape of TLS sections and that every file they name can be read now, so that a typo in a path fails at
 * startup with the field's name rather than at the first handshake. Whether the files hold what they should is
 * checked when the SSL contexts are built. Public so that other listeners with the same sections (the bridge's
 * {@code server.tls}) validate them the same way.
 */
public final class TlsValidator {

    private static final Set<String> KEY_STORE_TYPES = Set.of("PKCS12", "JKS");
    private static final Set<String> TRUST_STORE_TYPES = Set.of("PEM", "PKCS12", "JKS");

    private final List<String> problems;

    /** @param problems where each problem is added, prefixed with the section's path */
    public TlsValidator(List<String> problems) {
        this.problems = problems;
    }

    public void server(TlsServerConfig tls, String path) {
        if (tls.key() == null) {
            problems.add(path + ".key: is required: a gateway needs a certificate to offer TLS");
        }
        else {
            key(tls.key(), path + ".key");
        }
        if (tls.trust() != null) {
            trust(tls.trust(), path + ".trust");
        }
        else if (tls.clientAuth() != ClientAuthMode.NONE) {
            problems.add(path + ".trust: is required when clientAuth is " + tls.clientAuth()
                    + ", to say which client certificates to accept");
        }
        names(tls.protocols(), path + ".protocols");
        names(tls.cipherSuites(), path + ".cipherSuites");
    }

    public void client(TlsClientConfig tls, String path) {
        if (tls.key() != null) {
            key(tls.key(), path + ".key");
        }
        if (tls.trust() != null) {
            if (tls.insecure()) {
                problems.add(path + ".trust: cannot be combined with insecure: true, which trusts every certificate");
            }
            trust(tls.trust(), path + ".trust");
        }
        names(tls.protocols(), path + ".protocols");
        names(tls.cipherSuites(), path + ".cipherSuites");
    }

    private void key(KeyConfig key, String path) {
        boolean pem = key.privateKeyFile() != null || key.certificateFile() != null;
        boolean store = key.storeFile() != null;
        if (pem && store) {
            problems.add(path + ": set either privateKeyFile and certificateFile (PEM) or storeFile, not both");
            return;
        }
        if (!pem && !store) {
            problems.add(path + ": one of privateKeyFile and certificateFile (PEM) or storeFile is required");
            return;
        }
        if (pem) {
            requiredFile(key.privateKeyFile(), path + ".privateKeyFile");
            requiredFile(key.certificateFile(), path + ".certificateFile");
            unused(key.storePassword(), path + ".storePassword", "storeFile");
            unused(key.storeType(), path + ".storeType", "storeFile");
        }
        else {
            requiredFile(key.storeFile(), path + ".storeFile");
            storeType(key.storeType(), KEY_STORE_TYPES, path + ".storeType");
            if (key.storePassword() == null) {
                problems.add(path + ".storePassword: is required with storeFile");
            }
        }
        password(key.keyPassword(), path + ".keyPassword");
        password(key.storePassword(), path + ".storePassword");
    }

    private void trust(TrustConfig trust, String path) {
        requiredFile(trust.storeFile(), path + ".storeFile");
        storeType(trust.storeType(), TRUST_STORE_TYPES, path + ".storeType");
        if (trust.storeType().equals("PEM")) {
            unused(trust.storePassword(), path + ".storePassword", "PKCS12 or JKS stores");
        }
        password(trust.storePassword(), path + ".storePassword");
    }

    private void password(PasswordSource password, String path) {
        if (password == null) {
            return;
        }
        if (password.password() != null && password.passwordFile() != null) {
            problems.add(path + ": set either password or passwordFile, not both");
        }
        else if (password.password() == null && password.passwordFile() == null) {
            problems.add(path + ": one of password or passwordFile is required");
        }
        else if (password.passwordFile() != null) {
            readableFile(password.passwordFile(), path + ".passwordFile");
        }
    }

    private void storeType(String type, Set<String> allowed, String path) {
        if (!allowed.contains(type)) {
            problems.add(path + ": '" + type + "' is not supported; use one of " + allowed.stream().sorted().toList());
        }
    }

    private void names(List<String> names, String path) {
        for (int i = 0; i < names.size(); i++) {
            if (names.get(i) == null || names.get(i).isBlank()) {
                problems.add(path + "[" + i + "]: must not be empty");
            }
        }
    }

    private void unused(Object value, String path, String usedWith) {
        if (value != null) {
            problems.add(path + ": only applies to " + usedWith);
        }
    }

    private void requiredFile(String file, String path) {
        if (file == null || file.isBlank()) {
            problems.add(path + ": is required");
        }
        else {
            readableFile(file, path);
        }
    }

    private void readableFile(String file, String path) {
        Path p;
        try {
            p = Path.of(file);
        }
        catch (InvalidPathException e) {
            problems.add(path + ": '" + file + "' is not a valid path");
            return;
        }
        if (!Files.exists(p)) {
            problems.add(path + ": file '" + file + "' does not exist");
        }
        else if (!Files.isRegularFile(p)) {
            problems.add(path + ": '" + file + "' is not a regular file");
        }
        else if (!Files.isReadable(p)) {
            problems.add(path + ": file '" + file + "' is not readable");
        }
    }
}
