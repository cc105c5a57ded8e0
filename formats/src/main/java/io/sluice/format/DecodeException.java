package io.sluice.format;

/** A record's bytes that its format cannot read. The message is short and never contains the bytes themselves. */
public class DecodeException extends Exception {

    public DecodeException(String message) {
        super(message);
    }

    public DecodeException(String message, Throwable cause) {
        super(message, cause);
    }
}
