package io.sluice.kms.vault;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.Base64Variants;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

/**
 * The parts of a Vault response the Transit calls need: the scalar fields of {@code data}, the {@code errors} list,
 * and {@code data.plaintext} decoded straight from the JSON bytes, so that the key never exists as a String (Strings
 * cannot be wiped). The response bytes are wiped after parsing.
 */
final class VaultReply {

    private static final JsonFactory JSON = new JsonFactory();

    final int status;
    final Map<String, String> data;
    final List<String> errors;
    private byte[] plaintext;

    private VaultReply(int status, Map<String, String> data, List<String> errors, byte[] plaintext) {
        this.status = status;
        this.data = data;
        this.errors = errors;
        this.plaintext = plaintext;
    }

    /** Parses and then wipes {@code body}. A body that is not Vault's JSON gives a reply with no data. */
    static VaultReply parse(int status, byte[] body) {
        Map<String, String> data = new HashMap<>();
        List<String> errors = new ArrayList<>();
        byte[] plaintext = null;
        if (body.length > 0) {
            try (JsonParser p = JSON.createParser(body)) {
                if (p.nextToken() == JsonToken.START_OBJECT) {
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String field = p.currentName();
                        JsonToken value = p.nextToken();
                        if (field.equals("data") && value == JsonToken.START_OBJECT) {
                            plaintext = readData(p, data);
                        }
                        else if (field.equals("errors") && value == JsonToken.START_ARRAY) {
                            while (p.nextToken() != JsonToken.END_ARRAY) {
                                errors.add(p.getValueAsString(""));
                            }
                        }
                        else {
                            p.skipChildren();
                        }
                    }
                }
            }
            catch (IOException e) {
                errors.add("unreadable response from Vault");
            }
            finally {
                Arrays.fill(body, (byte) 0);
            }
        }
        return new VaultReply(status, data, errors, plaintext);
    }

    private static byte[] readData(JsonParser p, Map<String, String> data) throws IOException {
        byte[] plaintext = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (field.equals("plaintext") && value == JsonToken.VALUE_STRING) {
                plaintext = p.getBinaryValue(Base64Variants.MIME_NO_LINEFEEDS);
            }
            else if (value.isScalarValue()) {
                data.put(field, p.getValueAsString());
            }
            else {
                p.skipChildren();
            }
        }
        return plaintext;
    }

    /** The decoded {@code data.plaintext}, handed over once: the caller wipes it. */
    byte[] takePlaintext() {
        byte[] taken = plaintext;
        plaintext = null;
        return taken;
    }

    /** Vault's error messages, for exception messages (they never hold secrets). */
    String errorText() {
        return errors.isEmpty() ? "HTTP " + status : "HTTP " + status + ": " + String.join("; ", errors);
    }

    @Override
    public String toString() {
        return "VaultReply[" + errorText() + ", data fields " + data.keySet() + "]";
    }
}
