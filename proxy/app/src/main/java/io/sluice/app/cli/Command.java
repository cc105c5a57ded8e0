package io.sluice.app.cli;

import java.util.List;

/**
 * A {@code sluice} subcommand. Modules contribute theirs through {@link java.util.ServiceLoader}, so the
 * launcher grows with the modules on the classpath without knowing them.
 */
public interface Command {

    /** One or more words, e.g. {@code proxy} or {@code bench proxy}. */
    String name();

    /** One line for the usage text. */
    String summary();

    /** Runs the command with the arguments after its name; returns the process exit code. */
    int run(List<String> args) throws Exception;
}
