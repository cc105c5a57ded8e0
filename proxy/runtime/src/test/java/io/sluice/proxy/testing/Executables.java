package io.sluice.proxy.testing;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/** Finding the tools we did not write (python3, node, npm, chromium) that the tests drive. */
public final class Executables {

    private Executables() {
    }

    /** Whether {@code command} is an executable file in one of the PATH's directories. */
    public static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }
}
