package io.sluice.format;

/** A local schema file (or the message named in it) that cannot be used; raised when the codec is built, at startup. */
public class SchemaFileException extends Exception {

    public SchemaFileException(String message, Throwable cause) {
        super(message, cause);
    }

    public SchemaFileException(String message) {
        super(message);
    }
}
