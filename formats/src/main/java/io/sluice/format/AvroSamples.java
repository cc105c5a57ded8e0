package io.sluice.format;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;

/**
 * A value of an Avro schema with every field present, for checking masks against the schema when the configuration
 * is loaded (docs/masking.md): records hold every field, arrays one element, maps one entry {@code "k"}, unions their
 * first branch that is not null (so that a nullable field is present), strings {@code "x"}. Recursive schemas stop
 * at {@link #MAX_DEPTH}, where a union takes null and other fields are left at their simplest.
 */
final class AvroSamples {

    private static final int MAX_DEPTH = 16;

    private AvroSamples() {
    }

    static Object sample(Schema schema) {
        return sample(schema, 0);
    }

    private static Object sample(Schema schema, int depth) {
        switch (schema.getType()) {
            case RECORD: {
                GenericData.Record record = new GenericData.Record(schema);
                for (Schema.Field field : schema.getFields()) {
                    record.put(field.pos(), depth >= MAX_DEPTH && field.hasDefaultValue() ? GenericData.get().getDefaultValue(field)
                            : sample(field.schema(), depth + 1));
                }
                return record;
            }
            case ARRAY: {
                List<Object> one = new ArrayList<>(1);
                if (depth < MAX_DEPTH) {
                    one.add(sample(schema.getElementType(), depth + 1));
                }
                return new GenericData.Array<>(schema, one);
            }
            case MAP:
                return depth < MAX_DEPTH ? Map.of("k", sample(schema.getValueType(), depth + 1)) : Map.of();
            case UNION: {
                for (Schema branch : schema.getTypes()) {
                    if (branch.getType() != Schema.Type.NULL && (depth < MAX_DEPTH || !nests(branch))) {
                        return sample(branch, depth + 1);
                    }
                }
                return null;
            }
            case ENUM:
                return new GenericData.EnumSymbol(schema, schema.getEnumSymbols().get(0));
            case FIXED:
                return new GenericData.Fixed(schema, new byte[schema.getFixedSize()]);
            case STRING:
                return "x";
            case BYTES:
                return ByteBuffer.wrap(new byte[] {'x'});
            case INT:
                return 1;
            case LONG:
                return 1L;
            case FLOAT:
                return 1f;
            case DOUBLE:
                return 1d;
            case BOOLEAN:
                return true;
            default:
                return null;
        }
    }

    private static boolean nests(Schema schema) {
        return schema.getType() == Schema.Type.RECORD || schema.getType() == Schema.Type.ARRAY || schema.getType() == Schema.Type.MAP;
    }
}
