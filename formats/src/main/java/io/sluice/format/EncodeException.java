package io.sluice.format;

/** A JSON value that does not fit the topic's format (for publish); the message names the first field that does not. */
public class EncodeException extends Exception {

    public EncodeException(String message) {
        super(message);
    }

    public EncodeException(String message, Throwable cause) {
        super(message, cause);
    }
}
