package io.sluice.config;

/**
 * Thrown by a creator when a field that has no sensible default is absent, so that the loader can report it as
 * {@code path.field: is required} rather than as a generic construction failure of the enclosing object.
 */
public final class RequiredFieldException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String field;

    public RequiredFieldException(String field) {
        super(field + " is required");
        this.field = field;
    }

    String field() {
        return field;
    }
}
