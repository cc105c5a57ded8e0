package io.sluice.format;

/** Bytes naming a schema id the registry does not have ("not found"): no record written with a registered schema. */
public final class UnknownSchemaIdException extends DecodeException {

    public UnknownSchemaIdException(int schemaId) {
        super("unknown schema id " + schemaId);
    }
}
