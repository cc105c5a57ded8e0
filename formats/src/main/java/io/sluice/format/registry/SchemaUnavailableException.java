package io.sluice.format.registry;

/**
 * A schema that cannot be had: unknown to the registry (then {@link #notFound()}), or the registry unreachable, slow,
 * refusing us or answering something that is not a schema. The message names the schema and the cause, never
 * credentials.
 */
public class SchemaUnavailableException extends Exception {

    private final boolean notFound;

    public SchemaUnavailableException(String message, boolean notFound, Throwable cause) {
        super(message, cause);
        this.notFound = notFound;
    }

    public SchemaUnavailableException(String message, boolean notFound) {
        this(message, notFound, null);
    }

    /** The registry said it has no such schema (HTTP 404), as opposed to failing to answer. */
    public boolean notFound() {
        return notFound;
    }
}
