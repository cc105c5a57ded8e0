package io.sluice.results.read;

import java.nio.file.Path;

/** A result file that cannot be used, with the file and the field at fault in the message. */
public final class MalformedResultException extends RuntimeException {

    private final transient Path file;

    public MalformedResultException(Path file, String problem) {
        super(file + ": " + problem);
        this.file = file;
    }

    public MalformedResultException(Path file, String problem, Throwable cause) {
        super(file + ": " + problem, cause);
        this.file = file;
    }

    public Path file() {
        return file;
    }
}
