package io.sluice.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Command lines that run a main class in a fresh JVM with the same java binary and class path as this one, so a
 * child runs exactly the jars this process was built and tested with.
 */
public final class JavaCommand {

    private JavaCommand() {
    }

    public static List<String> of(List<String> jvmOptions, String mainClass, List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add(javaBinary());
        command.addAll(jvmOptions);
        command.add("-cp");
        // Under Surefire or `java -jar` this is a single jar whose manifest Class-Path lists the rest; the child's
        // launcher follows that manifest the same way ours did.
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.addAll(arguments);
        return command;
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command()
                .filter(path -> Files.isExecutable(Path.of(path)))
                .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }
}
