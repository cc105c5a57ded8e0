package io.sluice.app.cli;

import java.util.List;

import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Help.TextTable;
import picocli.CommandLine.Model.UsageMessageSpec;

import io.sluice.cli.CommandLines;
import io.sluice.cli.ExitCodes;
import io.sluice.logging.LogSettings;

/**
 * The {@code sluice} launcher. The command tree is {@link SluiceCommand}'s; this class checks the logging environment
 * first (a bad level or format must not go unnoticed behind a default) and maps what goes wrong to {@link ExitCodes} ({@link CommandLines#configure}).
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
        CommandLine root = CommandLines.configure(new CommandLine(new SluiceCommand()));
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
}
