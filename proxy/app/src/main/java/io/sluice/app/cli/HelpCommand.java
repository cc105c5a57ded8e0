package io.sluice.app.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import io.sluice.cli.ExitCodes;

/**
 * {@code sluice help [COMMAND...]}: the usage of {@code sluice} or of the command named, to any depth
 * ({@code sluice help bench proxy}); picocli's own help command stops at one level.
 */
@Command(name = "help", description = "Show the usage of sluice or of a command, e.g. 'sluice help bench proxy'.")
final class HelpCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "The command (one or more words) whose usage to show.")
    List<String> words = new ArrayList<>();

    @Override
    public Integer call() {
        CommandLine root = spec.parent().commandLine();
        CommandLine target = root;
        for (String word : words) {
            CommandLine next = target.getSubcommands().get(word);
            if (next == null) {
                throw new CommandLine.ParameterException(spec.commandLine(), "unknown command '" + word + "' (commands: "
                        + String.join(", ", target.getSubcommands().keySet()) + ")");
            }
            target = next;
        }
        if (target == root) {
            return ((SluiceCommand) root.getCommand()).call();
        }
        target.usage(spec.commandLine().getOut());
        return ExitCodes.OK;
    }
}
