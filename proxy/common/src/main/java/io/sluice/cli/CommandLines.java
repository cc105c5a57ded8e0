package io.sluice.cli;

import java.io.PrintWriter;
import java.util.List;

import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

import io.sluice.config.ConfigException;

/**
 * How every {@code sluice} command line is set up, the launcher's and a command's own in a test alike: plain-text help
 * and the {@link ExitCodes} for what goes wrong. In: a picocli command line; out: the same, configured. Here, below
 * the launcher, so that a command's tests in the module beside what it measures run it as the launcher does.
 */
public final class CommandLines {

    private CommandLines() {
    }

    /**
     * Plain-text help (no ANSI colours: launcher output ends up in logs and CI), and the exit codes: 2 with the
     * problem named for bad arguments and invalid configuration, 1 with the stack trace for failures while running.
     */
    public static CommandLine configure(CommandLine commandLine) {
        commandLine.setColorScheme(Help.defaultColorScheme(Help.Ansi.OFF));
        commandLine.setParameterExceptionHandler(CommandLines::badArguments);
        commandLine.setExecutionExceptionHandler((e, failed, parsed) -> failed(e, failed));
        return commandLine;
    }

    private static int badArguments(ParameterException e, String[] args) {
        CommandLine failed = e.getCommandLine();
        PrintWriter err = failed.getErr();
        String name = failed.getCommandSpec().qualifiedName();
        String message = e.getMessage();
        List<String> unknown = failed.getUnmatchedArguments();
        if (!(e instanceof UnmatchedArgumentException) && !unknown.isEmpty()) {
            // Picocli checks required options first, but a misspelt option is the likelier cause: name it first.
            message = "Unknown option or argument: '" + unknown.get(0) + "'; " + message;
        } else if (e instanceof UnmatchedArgumentException unmatched && !failed.getSubcommands().isEmpty()
                && !unmatched.getUnmatched().isEmpty() && !unmatched.getUnmatched().get(0).startsWith("-")) {
            message = "unknown command '" + unmatched.getUnmatched().get(0) + "' (commands: "
                    + String.join(", ", failed.getSubcommands().keySet()) + ")";
        }
        err.println(name + ": " + message);
        err.println("Try '" + name + " --help' for its options.");
        err.flush();
        return ExitCodes.USAGE;
    }

    private static int failed(Exception e, CommandLine failed) {
        PrintWriter err = failed.getErr();
        String name = failed.getCommandSpec().qualifiedName();
        int exit;
        if (e instanceof ConfigException config) {
            err.println(name + ": invalid configuration:");
            config.problems().forEach(p -> err.println("  " + p));
            exit = ExitCodes.USAGE;
        } else if (e instanceof UsageException) {
            err.println(name + ": " + e.getMessage());
            err.println("Try '" + name + " --help' for its options.");
            exit = ExitCodes.USAGE;
        } else {
            err.println(name + " failed: " + e);
            e.printStackTrace(err);
            exit = ExitCodes.FAILURE;
        }
        err.flush();
        return exit;
    }
}
