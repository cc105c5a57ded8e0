package io.sluice.bench.bridge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * This process's open-file limit as the kernel enforces it (/proc/self/limits). Read here rather than from the shell's
 * {@code ulimit -n}: the JVM raises its own soft limit to the hard one at start-up, and the bridge child inherits it.
 */
public final class FdLimit {

    /** Descriptors the bench and the bridge need besides connections: jars, Kafka clients, epoll, logs. */
    public static final int HEADROOM = 1_000;

    private FdLimit() {
    }

    public static OptionalLong soft() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max open files")) {
                    String[] fields = line.substring("Max open files".length()).trim().split("\\s+");
                    return fields[0].equals("unlimited") ? OptionalLong.of(Long.MAX_VALUE) : OptionalLong.of(Long.parseLong(fields[0]));
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: no check
        }
        return OptionalLong.empty();
    }

    /** Null when {@code connections} fit, else what to tell the user. */
    public static String problem(int connections) {
        OptionalLong limit = soft();
        if (limit.isEmpty() || connections + HEADROOM <= limit.getAsLong()) {
            return null;
        }
        return ("--connections %,d needs about %,d open files in this process and as many in the bridge, but the limit is %,d "
                + "(at most %,d connections here). Raise it before starting: `ulimit -n 1100000` (above the hard limit this needs "
                + "root with CAP_SYS_RESOURCE, e.g. /etc/security/limits.conf or `docker run --ulimit nofile=1100000`).")
                .formatted(connections, connections + HEADROOM, limit.getAsLong(), limit.getAsLong() - HEADROOM);
    }
}
