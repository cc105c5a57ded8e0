package io.sluice.format;

/**
 * Bytes that could not be checked because the schema registry did not give their schema (unreachable, timed out, TLS
 * refused, an answer that is not a schema): not the bytes' fault. The message is fixed and names the schema id only;
 * what the registry client said (its address, the TLS reason) goes to the log (docs/security.md).
 */
public final class DecodeOutageException extends DecodeException {

    public DecodeOutageException(int schemaId) {
        super("schema id " + schemaId + " cannot be fetched from the schema registry now");
    }
}
