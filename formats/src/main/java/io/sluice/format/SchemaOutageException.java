package io.sluice.format;

/**
 * A publish that could not be checked against its topic's schema because the registry did not answer (unreachable,
 * timed out, TLS refused, an answer that is not a schema). Not the payload's fault: a publish answers it as the node
 * being unable to publish now, with this fixed reason; what the registry client said (its address, the TLS reason)
 * goes to the node's log only (docs/security.md).
 */
public final class SchemaOutageException extends EncodeException {

    public SchemaOutageException(String subject) {
        super("the schema of subject " + subject + " cannot be fetched from the schema registry now; nothing was published");
    }
}
