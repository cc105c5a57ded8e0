package io.sluice.image;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Dockerfile read as its instructions, with {@code ${ARG}} references replaced by the ARG defaults (as a build
 * without --build-arg sees them). Enough of the syntax for ImageIT to compare it with {@link SluiceImage}: line
 * continuations, comments, and the stage each instruction belongs to.
 */
record Dockerfile(List<Instruction> instructions) {

    private static final Pattern REFERENCE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}|\\$([A-Za-z_][A-Za-z0-9_]*)");

    /** One instruction: its keyword in upper case, its arguments with ARG defaults substituted, its stage (0 = before any FROM). */
    record Instruction(String keyword, String arguments, int stage) {
    }

    static Dockerfile read(Path file) throws IOException {
        List<String> logical = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : Files.readAllLines(file)) {
            String stripped = line.strip();
            if (stripped.startsWith("#") || (stripped.isEmpty() && current.length() == 0)) {
                continue;
            }
            if (stripped.endsWith("\\")) {
                current.append(stripped, 0, stripped.length() - 1).append(' ');
            } else {
                logical.add(current.append(stripped).toString().strip());
                current.setLength(0);
            }
        }
        Map<String, String> globalArgs = new HashMap<>();
        Map<String, String> args = globalArgs;
        List<Instruction> instructions = new ArrayList<>();
        int stage = 0;
        for (String line : logical) {
            if (line.isEmpty()) {
                continue;
            }
            String[] parts = line.split("\\s+", 2);
            String keyword = parts[0].toUpperCase();
            String rest = parts.length > 1 ? parts[1] : "";
            if (keyword.equals("FROM")) {
                stage++;
                rest = substitute(rest, globalArgs);
                args = new HashMap<>();
            } else {
                rest = substitute(rest, args);
            }
            if (keyword.equals("ARG")) {
                String[] nameValue = rest.split("=", 2);
                String name = nameValue[0].strip();
                // An ARG without a default inside a stage takes the global one, as Docker does.
                args.put(name, nameValue.length > 1 ? nameValue[1].strip() : globalArgs.getOrDefault(name, ""));
            }
            instructions.add(new Instruction(keyword, rest, stage));
        }
        return new Dockerfile(instructions);
    }

    List<Instruction> all(String keyword) {
        return instructions.stream().filter(i -> i.keyword().equals(keyword)).toList();
    }

    /** The instructions of the last stage: the image that is built. */
    List<Instruction> finalStage(String keyword) {
        int last = instructions.stream().mapToInt(Instruction::stage).max().orElse(0);
        return all(keyword).stream().filter(i -> i.stage() == last).toList();
    }

    private static String substitute(String text, Map<String, String> args) {
        Matcher m = REFERENCE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2);
            m.appendReplacement(out, Matcher.quoteReplacement(args.getOrDefault(name, m.group())));
        }
        return m.appendTail(out).toString();
    }
}
