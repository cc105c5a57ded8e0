package io.sluice.cli;

/**
 * What every {@code sluice} command exits with, so scripts and CI can tell a bad command line or configuration (fix
 * the input) from a failure while running (look at the logs). docs/operations.md lists the same.
 */
public final class ExitCodes {

    /** Done; or, for {@code --validate}, the configuration is valid. */
    public static final int OK = 0;
    /** Failed while running: a port in use, an unreachable broker, an I/O error. */
    public static final int FAILURE = 1;
    /** Bad arguments (an unknown option or command, a malformed value) or an invalid configuration file. */
    public static final int USAGE = 2;

    /** The footer of every command's {@code --help}; a constant so that the root's annotation can carry it. */
    public static final String HELP_FOOTER = "%nExit codes: 0 success (for --validate: the configuration is valid);"
            + " 1 failure while running; 2 bad arguments or invalid configuration;"
            + " 143 stopped by SIGTERM (130 by Ctrl-C) after a graceful shutdown. See docs/operations.md.";

    private ExitCodes() {
    }
}
