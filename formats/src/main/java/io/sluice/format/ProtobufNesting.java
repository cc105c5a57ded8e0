package io.sluice.format;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;

/**
 * The nesting one Protobuf record may make the bridge recurse through, bounded before the work: a {@code .proto} text's
 * before Wire's parser reads it, and a parsed message's through its {@code google.protobuf.Any} values before JsonFormat
 * prints it. The wire parse bounds message nesting by its recursion limit, but an Any's value is bytes to it, and
 * JsonFormat unpacks and prints each Any with no limit: an Any holding an Any, 5,000 deep in 225 KB, overflowed the
 * reader thread's stack after copying the rest of the record once per level.
 */
final class ProtobufNesting {

    /**
     * The deepest {@code {}, [], (), <>} nesting a .proto text may have. Messages nested in messages and option values
     * are the only deep structures in a schema; 100 is beyond any hand-written one, and Wire's recursive parser needs a
     * few stack frames per level (20,000 levels overflowed a 1 MiB thread stack).
     */
    static final int MAX_TEXT_DEPTH = 100;

    private static final String ANY = "google.protobuf.Any";

    private ProtobufNesting() {
    }

    /**
     * Refuses text nesting deeper than {@link #MAX_TEXT_DEPTH}. Brackets in strings and comments count too (a closing one
     * never lowers the count below zero, so none can hide real nesting): over-counting only refuses odd schemas.
     */
    static void checkText(String path, String text) {
        int depth = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '{' || c == '[' || c == '(' || c == '<') {
                if (++depth > MAX_TEXT_DEPTH) {
                    throw new IllegalArgumentException(path + ": the .proto text nests deeper than " + MAX_TEXT_DEPTH + " levels");
                }
            }
            else if ((c == '}' || c == ']' || c == ')' || c == '>') && depth > 0) {
                depth--;
            }
        }
    }

    /**
     * Walks a parsed message as JsonFormat will print it, unpacking each Any whose type the registry knows (JsonFormat
     * refuses the others), and refuses more than {@code maxDepth} levels of messages and Anys together. Each Any is
     * parsed here once more than JsonFormat parses it, at most {@code maxDepth} levels deep: a bounded multiple of the
     * record's bytes.
     */
    static void check(Message message, JsonFormat.TypeRegistry types, int maxDepth) throws DecodeException {
        check(message, types, maxDepth, maxDepth);
    }

    private static void check(Message message, JsonFormat.TypeRegistry types, int left, int maxDepth) throws DecodeException {
        if (left <= 0) {
            throw new DecodeException("the value nests deeper than " + maxDepth + " levels (messages and Any values)");
        }
        Descriptor type = message.getDescriptorForType();
        if (ANY.equals(type.getFullName())) {
            Message inner = unpack(message, type, types, left);
            if (inner != null) {
                check(inner, types, left - 1, maxDepth);
            }
            return;
        }
        for (Map.Entry<FieldDescriptor, Object> field : message.getAllFields().entrySet()) {
            if (field.getKey().getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
                continue;
            }
            if (field.getKey().isRepeated()) {
                for (Object item : (List<?>) field.getValue()) {
                    check((Message) item, types, left - 1, maxDepth);
                }
            }
            else {
                check((Message) field.getValue(), types, left - 1, maxDepth);
            }
        }
    }

    /** The Any's value as its type, or null when JsonFormat will refuse it anyway (unknown type, bad bytes). */
    private static Message unpack(Message any, Descriptor type, JsonFormat.TypeRegistry types, int left) {
        String url = (String) any.getField(type.findFieldByNumber(1));
        ByteString value = (ByteString) any.getField(type.findFieldByNumber(2));
        try {
            // The type's full name follows the URL's last '/', as JsonFormat reads it.
            Descriptor inner = url.indexOf('/') < 0 ? null : types.find(url.substring(url.lastIndexOf('/') + 1));
            if (inner == null) {
                return null;
            }
            CodedInputStream in = value.newCodedInput();
            in.setRecursionLimit(left);
            return DynamicMessage.parseFrom(inner, in);
        }
        catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
