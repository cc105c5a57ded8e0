package io.sluice.format.registry;

/**
 * The registry did not answer at all: the connection was refused or broken, TLS failed, or it took longer than the
 * timeout. Unlike an answer that says no, this says nothing about the schema, and suggests that the next request
 * would fare no better for a while ({@link CachingSchemaSource} backs off).
 */
public class RegistryUnreachableException extends SchemaUnavailableException {

    public RegistryUnreachableException(String message, Throwable cause) {
        super(message, false, cause);
    }
}
