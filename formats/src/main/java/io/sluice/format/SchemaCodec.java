package io.sluice.format;

/**
 * A codec of bytes in the Confluent wire format whose schema comes from the registry ({@code avro}, {@code protobuf} and
 * {@code json-schema} with {@code registry: true}), read for checking rather than for delivery: the proxy's
 * RecordValidation calls it on its event loops, so it never waits for the registry.
 */
public interface SchemaCodec extends Codec {

    /**
     * The schema {@code bytes} name and, with {@code decode}, whether the payload conforms to it: Avro and Protobuf
     * payloads are decoded within {@link FormatLimits} (Avro with nothing left over), a JSON Schema payload is parsed and
     * validated. Never blocks.
     *
     * @throws SchemaPendingException when the schema is not fetched or parsed yet: that happens on a lookup thread, and
     *                                the exception's future says when to ask again
     * @throws DecodeOutageException  when the registry cannot give the schema now
     * @throws UnknownSchemaIdException when the registry does not have the id
     * @throws DecodeException        when the bytes do not conform: no header, an unknown id, a schema of another
     *                                language, a payload that does not decode or validate; the message says which
     *                                (JSON Schema: the first violation's location and the validator's words), in at
     *                                most a few hundred characters, never the payload's bytes
     */
    SchemaRecord read(byte[] bytes, boolean decode) throws DecodeException, SchemaPendingException;
}
