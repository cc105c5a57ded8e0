package io.sluice.bridge.protocol;

/**
 * What one record's work (decoding, selection, projection, delta) may throw and still cost that record alone
 * (docs/security.md, "What one record can cost"). Every size a schema or record declares is bounded before the work, so
 * none of this should happen; these are the last line, so that a bug or an unforeseen library failure on one record's
 * bytes does not stop the reader that feeds every client of the node.
 *
 * <p>Contained: every {@link Exception} and {@link Error} except the JVM's own failures ({@link VirtualMachineError}),
 * with one exception: a {@link StackOverflowError} <em>is</em> contained. It comes from recursion on the record's data or
 * schema, has been unwound by the time it is caught (the thread's stack is whole again), and was thrown inside one
 * library call whose state is that record's alone (the locks the hub takes are never held while a record is worked on).
 * An {@link OutOfMemoryError} or an {@link InternalError} is not the record's alone: it propagates, the reader stops,
 * and liveness fails so that the node is restarted.
 */
public final class PerRecord {

    private PerRecord() {
    }

    /** Whether {@code failure} costs only the record whose work threw it. */
    public static boolean contained(Throwable failure) {
        return !(failure instanceof VirtualMachineError) || failure instanceof StackOverflowError;
    }

    /** Rethrows a failure that is not {@link #contained}; returns otherwise. */
    public static void rethrowIfFatal(Throwable failure) {
        if (!contained(failure)) {
            throw (VirtualMachineError) failure;
        }
    }

    /** A short reason for counters and logs: the class and the first line of its message, never the record's bytes. */
    public static String reason(Throwable failure) {
        String message = failure.getMessage();
        if (message == null || message.isBlank()) {
            return failure.getClass().getSimpleName();
        }
        int nl = message.indexOf('\n');
        message = nl < 0 ? message : message.substring(0, nl);
        return failure.getClass().getSimpleName() + ": " + (message.length() > 160 ? message.substring(0, 160) : message);
    }
}
