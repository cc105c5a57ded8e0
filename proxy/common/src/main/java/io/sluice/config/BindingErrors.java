package io.sluice.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.Map;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.InvalidNullException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;

/**
 * Turns Jackson's binding failures into {@code path.to.field: what is wrong}, in the notation of the YAML file
 * ({@code virtualClusters[0].gateways[1].name}).
 */
final class BindingErrors {

    private BindingErrors() {
    }

    static String describe(JsonMappingException e, String prefix) {
        StringBuilder relative = new StringBuilder();
        for (JsonMappingException.Reference ref : e.getPath()) {
            appendSegment(relative, ref.getFieldName(), ref.getIndex());
        }
        String message = message(e);
        if (rootCause(e) instanceof RequiredFieldException required) {
            appendSegment(relative, required.field(), -1);
            message = "is required";
        }
        return join(prefix, relative.toString()) + ": " + message;
    }

    static String join(String prefix, String relative) {
        if (prefix.isEmpty()) {
            return relative.isEmpty() ? "(root)" : relative;
        }
        if (relative.isEmpty() || relative.startsWith("[")) {
            return prefix + relative;
        }
        return prefix + "." + relative;
    }

    private static void appendSegment(StringBuilder path, String field, int index) {
        if (field != null) {
            if (path.length() > 0) {
                path.append('.');
            }
            path.append(field);
        }
        else if (index >= 0) {
            path.append('[').append(index).append(']');
        }
    }

    private static String message(JsonMappingException e) {
        if (e instanceof UnrecognizedPropertyException) {
            return "unknown field";
        }
        if (e instanceof InvalidNullException) {
            return "must not be null";
        }
        if (e instanceof InvalidFormatException invalid && invalid.getTargetType() != null) {
            return "invalid value '" + invalid.getValue() + "' (expected " + expected(invalid.getTargetType()) + ")";
        }
        if (e instanceof ValueInstantiationException) {
            return String.valueOf(rootCause(e).getMessage());
        }
        if (e instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null) {
            return "expected " + expected(mismatch.getTargetType());
        }
        return e.getOriginalMessage();
    }

    private static String expected(Class<?> type) {
        if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
            return "an integer";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        if (type == String.class) {
            return "a string";
        }
        if (type == Duration.class) {
            return DurationDeserializer.EXPECTED;
        }
        if (type == HostPort.class) {
            return "host:port";
        }
        if (type == PasswordSource.class) {
            return "a password, or an object with password or passwordFile";
        }
        if (type.isEnum()) {
            return "one of " + Arrays.stream(type.getEnumConstants()).map(String::valueOf).collect(Collectors.joining(", "));
        }
        if (Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "a list";
        }
        if (Map.class.isAssignableFrom(type)) {
            return "a mapping of names to values";
        }
        return "an object";
    }

    private static Throwable rootCause(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause;
    }
}
