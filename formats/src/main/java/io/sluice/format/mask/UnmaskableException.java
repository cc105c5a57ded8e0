package io.sluice.format.mask;

import io.sluice.format.EncodeException;

/**
 * A record's value that a mask cannot be applied to, or that no longer fits its schema once masked; the message names
 * the field (a JSON Pointer) and why, never the value.
 */
public final class UnmaskableException extends EncodeException {

    public UnmaskableException(String message) {
        super(message);
    }
}
