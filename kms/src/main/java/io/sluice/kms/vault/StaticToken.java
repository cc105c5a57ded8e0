package io.sluice.kms.vault;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** A token given by the operator: inline, from an environment variable (both fixed), or from a file (read each login). */
final class StaticToken implements VaultCredentials {

    private final String token;
    private final Path file;

    private StaticToken(String token, Path file) {
        this.token = token;
        this.file = file;
    }

    static StaticToken of(String token) {
        return new StaticToken(token, null);
    }

    static StaticToken fromFile(Path file) {
        return new StaticToken(null, file);
    }

    /** A token file's content without the line break that editors and {@code echo} add. */
    static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8).strip();
    }

    @Override
    public VaultLogin login(VaultDriver driver) throws IOException {
        String value = file != null ? read(file) : token;
        if (value.isEmpty()) {
            throw new IOException("token file '" + file + "' is empty");
        }
        return new VaultLogin(value, VaultLogin.UNKNOWN_TTL, false);
    }

    @Override
    public boolean canReplaceToken() {
        return file != null;
    }

    @Override
    public String toString() {
        return file != null ? "token file " + file : "static token";
    }
}
