package io.sluice.format;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Iterator;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;

/**
 * Checks published JSON against a message type before JsonFormat parses it, so that a refusal names the field's path
 * (JsonFormat's own messages say "Not an int32 value: 3000000000" without saying where). It follows the proto3 JSON
 * rules JsonFormat applies (either field name, numbers or numeric strings for integers, null as the default); the
 * well-known types' JSON forms are left to JsonFormat, whose message is then prefixed with their path.
 */
final class ProtobufJsonCheck {

    private static final BigInteger UINT32_MAX = BigInteger.valueOf(0xffffffffL);
    private static final BigInteger UINT64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    private ProtobufJsonCheck() {
    }

    static void check(JsonNode node, Descriptor type, String path) throws EncodeException {
        if (type.getFullName().startsWith("google.protobuf.")) {
            return;
        }
        if (!node.isObject()) {
            throw mismatch(path, "an object (message " + type.getFullName() + ")", node);
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            String fieldPath = path + "/" + AvroJson.escape(entry.getKey());
            FieldDescriptor field = type.findFieldByName(entry.getKey());
            if (field == null) {
                field = byJsonName(type, entry.getKey());
            }
            if (field == null) {
                throw new EncodeException(fieldPath + ": no such field in message " + type.getFullName());
            }
            JsonNode value = entry.getValue();
            if (value.isNull()) {
                continue;
            }
            if (field.isMapField()) {
                if (!value.isObject()) {
                    throw mismatch(fieldPath, "an object (map)", value);
                }
                FieldDescriptor valueField = field.getMessageType().findFieldByName("value");
                for (Iterator<Map.Entry<String, JsonNode>> entries = value.fields(); entries.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = entries.next();
                    single(e.getValue(), valueField, fieldPath + "/" + AvroJson.escape(e.getKey()));
                }
            }
            else if (field.isRepeated()) {
                if (!value.isArray()) {
                    throw mismatch(fieldPath, "an array", value);
                }
                for (int i = 0; i < value.size(); i++) {
                    single(value.get(i), field, fieldPath + "/" + i);
                }
            }
            else {
                single(value, field, fieldPath);
            }
        }
    }

    private static FieldDescriptor byJsonName(Descriptor type, String name) {
        for (FieldDescriptor field : type.getFields()) {
            if (field.getJsonName().equals(name)) {
                return field;
            }
        }
        return null;
    }

    private static void single(JsonNode value, FieldDescriptor field, String path) throws EncodeException {
        if (value.isNull()) {
            return;
        }
        switch (field.getJavaType()) {
            case MESSAGE -> check(value, field.getMessageType(), path);
            case INT -> integer(value, path, field, signed(field, 31), true);
            case LONG -> integer(value, path, field, signed(field, 63), true);
            case BOOLEAN -> {
                if (!value.isBoolean() && !(value.isTextual() && ("true".equals(value.textValue())
                        || "false".equals(value.textValue())))) {
                    throw mismatch(path, "a boolean", value);
                }
            }
            case STRING -> {
                if (!value.isTextual()) {
                    throw mismatch(path, "a string", value);
                }
            }
            case BYTE_STRING -> {
                if (!value.isTextual()) {
                    throw mismatch(path, "a base64 string", value);
                }
            }
            case FLOAT, DOUBLE -> {
                if (!value.isNumber() && !(value.isTextual() && isFloatText(value.textValue()))) {
                    throw mismatch(path, "a number", value);
                }
            }
            case ENUM -> {
                if (value.isTextual()) {
                    if (field.getEnumType().findValueByName(value.textValue()) == null) {
                        throw new EncodeException(path + ": unknown value \"" + clip(value.textValue())
                                + "\" of enum " + field.getEnumType().getFullName());
                    }
                }
                else if (!value.isIntegralNumber()) {
                    throw mismatch(path, "an enum value name", value);
                }
            }
            default -> {
            }
        }
    }

    /** Bits of magnitude allowed, negative for unsigned types. */
    private static int signed(FieldDescriptor field, int bits) {
        return switch (field.getType()) {
            case UINT32, FIXED32, UINT64, FIXED64 -> -(bits + 1);
            default -> bits;
        };
    }

    private static void integer(JsonNode value, String path, FieldDescriptor field, int bits, boolean textAllowed)
            throws EncodeException {
        BigDecimal number;
        if (value.isNumber()) {
            number = value.decimalValue();
        }
        else if (textAllowed && value.isTextual() && value.textValue().length() <= 40) {
            try {
                number = new BigDecimal(value.textValue());
            }
            catch (NumberFormatException e) {
                throw mismatch(path, "an integer", value);
            }
        }
        else {
            throw mismatch(path, "an integer", value);
        }
        BigInteger integer;
        try {
            integer = number.toBigIntegerExact();
        }
        catch (ArithmeticException e) {
            throw new EncodeException(path + ": " + clip(number.toString()) + " is not an integer");
        }
        boolean fits = bits > 0 ? integer.bitLength() <= bits
                : integer.signum() >= 0 && integer.compareTo(bits == -32 ? UINT32_MAX : UINT64_MAX) <= 0;
        if (!fits) {
            throw new EncodeException(path + ": " + integer + " is out of range for " + field.getType().name()
                    .toLowerCase(java.util.Locale.ROOT));
        }
    }

    private static boolean isFloatText(String text) {
        if ("NaN".equals(text) || "Infinity".equals(text) || "-Infinity".equals(text)) {
            return true;
        }
        try {
            Double.parseDouble(text);
            return text.length() <= 40;
        }
        catch (NumberFormatException e) {
            return false;
        }
    }

    private static EncodeException mismatch(String path, String expected, JsonNode got) {
        return new EncodeException(path + ": expected " + expected + ", got " + JsonTypes.describe(got));
    }

    private static String clip(String text) {
        return text.length() > 64 ? text.substring(0, 64) + "..." : text;
    }
}
