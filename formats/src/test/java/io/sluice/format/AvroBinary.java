package io.sluice.format;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;

/**
 * Avro binary as Apache Avro's own writer produces it: the bytes the tests give the bridge's decoder come from the
 * reference implementation, not from the code under test.
 */
public final class AvroBinary {

    private AvroBinary() {
    }

    /** {@code datum} (a GenericRecord, or any value of the schema) as bare Avro binary. */
    public static byte[] write(Schema schema, Object datum) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<>(schema).write(datum, encoder);
            encoder.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Bare Avro binary read back with Apache Avro's own reader. */
    public static GenericRecord read(Schema schema, byte[] bytes) {
        try {
            return new GenericDatumReader<GenericRecord>(schema).read(null, DecoderFactory.get().binaryDecoder(bytes, null));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A record in the Confluent wire format, which must name {@code schemaId}, read back with Apache Avro's own reader. */
    public static GenericRecord readConfluent(Schema schema, int schemaId, byte[] bytes) {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        if (bytes.length < 5 || buf.get() != 0 || buf.getInt() != schemaId) {
            throw new IllegalArgumentException("not the Confluent wire format with schema id " + schemaId);
        }
        return read(schema, Arrays.copyOfRange(bytes, 5, bytes.length));
    }

    /** The same in the Confluent wire format: magic byte 0 and the schema id before the record. */
    public static byte[] confluent(int schemaId, Schema schema, Object datum) {
        return ConfluentWireFormat.frame(schemaId, write(schema, datum));
    }
}
