package io.sluice.format;

/**
 * The schema a codec publishes with could not be had (the registry is down, the subject has no schema, the schema
 * does not parse). The message says which, in the words a publish refusal would use; it never contains record bytes.
 */
public class SchemaLookupException extends Exception {

    public SchemaLookupException(String message) {
        super(message);
    }
}
