package io.sluice.cli;

/** Bad command-line arguments: printed without a stack trace, exit code 2. */
public final class UsageException extends RuntimeException {

    public UsageException(String message) {
        super(message);
    }
}
