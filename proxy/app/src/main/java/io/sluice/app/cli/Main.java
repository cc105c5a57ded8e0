package io.sluice.app.cli;

import java.io.PrintWriter;
import java.util.List;

import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Help.TextTable;
import picocli.CommandLine.Model.UsageMessageSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

import io.sluice.config.ConfigException;
import io.sluice.logging.LogSettings;

/**
 * The {@code sluice} launcher. The command tree is {@link SluiceCommand}'s; this class checks the logging environment
 * first (a bad level or format must not go unnoticed behind a default) and maps what goes wrong to {@link ExitCodes}.
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] argv) {
        List<String> logProblems = LogSettings.problems();
        if (!logProblems.isEmpty()) {
            logProblems.forEach(p -> System.err.println("sluice: " + p));
            System.exit(ExitCodes.USAGE);
        }
        System.exit(commandLine().execute(argv));
    }

    /** Every command, configured as {@link #main} runs them. */
    public static CommandLine commandLine() {
        CommandLine root = configure(new CommandLine(new SluiceCommand()));
        root.getHelpSectionMap().put(UsageMessageSpec.SECTION_KEY_COMMAND_LIST, Main::everyCommand);
        return root;
    }

    /** The root's command list names every runnable command at every depth ({@code bench proxy}, {@code size bridge}). */
    private static String everyCommand(Help help) {
        int nameWidth = 20;
        TextTable table = TextTable.forColumnWidths(help.colorScheme(), nameWidth, help.commandSpec().usageMessage().width() - nameWidth);
        // Only the checkout's ./sluice (which sets SLUICE_CHECKOUT) runs the test suite; a distribution has no sources.
        if (System.getenv("SLUICE_CHECKOUT") != null) {
            table.addRowValues("  test", "Run the whole test suite (mvn -B verify).");
        }
        addRows(table, help.commandSpec().commandLine(), "");
        return table.toString();
    }

    private static void addRows(TextTable table, CommandLine parent, String prefix) {
        parent.getSubcommands().forEach((name, command) -> {
            String[] description = command.getCommandSpec().usageMessage().description();
            table.addRowValues("  " + prefix + name, description.length == 0 ? "" : firstSentence(description[0]));
            addRows(table, command, prefix + name + " ");
        });
    }

    /**
     * Plain-text help (no ANSI colours: launcher output ends up in logs and CI), and the exit codes: 2 with the
     * problem named for bad arguments and invalid configuration, 1 with the stack trace for failures while running.
     */
    public static CommandLine configure(CommandLine commandLine) {
        commandLine.setColorScheme(Help.defaultColorScheme(Help.Ansi.OFF));
        commandLine.setParameterExceptionHandler(Main::badArguments);
        commandLine.setExecutionExceptionHandler((e, failed, parsed) -> failed(e, failed));
        return commandLine;
    }

    /** The list gets the description up to its first full stop or semicolon; {@code --help} shows all of it. */
    private static String firstSentence(String description) {
        int end = description.length();
        for (String stop : List.of(". ", "; ")) {
            int at = description.indexOf(stop);
            if (at > 0 && at < end) {
                end = at;
            }
        }
        return description.substring(0, end).replaceAll("\\.$", "") + ".";
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
