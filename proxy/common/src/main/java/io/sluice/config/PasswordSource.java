package io.sluice.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * A secret given inline or read from a file. Exactly one of the two is set in a valid configuration (checked by the
 * loader). In YAML a plain string is shorthand for {@code {password: ...}}.
 */
public record PasswordSource(String password, String passwordFile) {

    private static final String MASK = "******";

    /** The YAML shorthand: a bare string is the password itself. */
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static PasswordSource of(String password) {
        return new PasswordSource(password, null);
    }

    @JsonCreator(mode = JsonCreator.Mode.PROPERTIES)
    static PasswordSource fromFields(@JsonProperty("password") String password,
                                     @JsonProperty("passwordFile") String passwordFile) {
        return new PasswordSource(password, passwordFile);
    }

    public static PasswordSource fromFile(String passwordFile) {
        return new PasswordSource(null, passwordFile);
    }

    /**
     * The secret. A password file is read on every call so that rotated secrets are picked up; trailing line breaks
     * are dropped because editors and {@code echo} add them.
     *
     * @throws ConfigException if the file cannot be read, or if neither form is set
     */
    public String resolve() {
        if (password != null) {
            return password;
        }
        if (passwordFile == null) {
            throw new ConfigException("neither password nor passwordFile is set");
        }
        try {
            String content = Files.readString(Path.of(passwordFile), StandardCharsets.UTF_8);
            return content.replaceFirst("[\\r\\n]+$", "");
        }
        catch (NoSuchFileException e) {
            throw new ConfigException("passwordFile '" + passwordFile + "' cannot be read: it does not exist", e);
        }
        catch (IOException | RuntimeException e) {
            throw new ConfigException("passwordFile '" + passwordFile + "' cannot be read: " + e, e);
        }
    }

    /** Never the secret: the record's generated toString would leak it into logs. Serialization is masked too. */
    @JsonValue
    @Override
    public String toString() {
        return password != null || passwordFile == null ? MASK : "passwordFile=" + passwordFile;
    }
}
