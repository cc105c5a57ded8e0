package io.sluice.app.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

import io.sluice.proxy.config.ConfigException;
import io.sluice.proxy.logging.LogSettings;

/** The {@code sluice} launcher: picks the subcommand whose name matches the most leading arguments. */
public final class Main {

    private Main() {
    }

    public static void main(String[] argv) {
        List<String> logProblems = LogSettings.problems();
        if (!logProblems.isEmpty()) {
            logProblems.forEach(p -> System.err.println("sluice: " + p));
            System.exit(2);
        }
        List<String> args = Arrays.asList(argv);
        List<Command> commands = new ArrayList<>();
        ServiceLoader.load(Command.class).forEach(commands::add);
        commands.sort(Comparator.comparing(Command::name));
        Command chosen = null;
        int words = 0;
        for (Command c : commands) {
            String[] name = c.name().split(" ");
            if (name.length > words && args.size() >= name.length && args.subList(0, name.length).equals(Arrays.asList(name))) {
                chosen = c;
                words = name.length;
            }
        }
        if (chosen == null) {
            usage(commands);
            System.exit(args.isEmpty() || args.get(0).equals("help") || args.get(0).equals("--help") ? 0 : 2);
            return;
        }
        try {
            System.exit(chosen.run(args.subList(words, args.size())));
        } catch (ConfigException e) {
            System.err.println("sluice " + chosen.name() + ": invalid configuration:");
            e.problems().forEach(p -> System.err.println("  " + p));
            System.exit(2);
        } catch (UsageException e) {
            System.err.println("sluice " + chosen.name() + ": " + e.getMessage());
            System.exit(2);
        } catch (Exception e) {
            System.err.println("sluice " + chosen.name() + " failed: " + e);
            e.printStackTrace(System.err);
            System.exit(1);
        }
    }

    private static void usage(List<Command> commands) {
        System.out.println("usage: sluice <command> [options]\n");
        // Only the checkout's ./sluice (which sets SLUICE_CHECKOUT) can run the test suite; a distribution has no sources.
        if (System.getenv("SLUICE_CHECKOUT") != null) {
            System.out.println("  test" + " ".repeat(16) + "run the whole test suite (mvn -B verify)");
        }
        for (Command c : commands) {
            System.out.printf("  %-19s %s%n", c.name(), c.summary());
        }
    }
}
