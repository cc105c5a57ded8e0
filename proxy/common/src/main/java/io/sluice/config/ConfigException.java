package io.sluice.config;

import java.util.List;

/**
 * A configuration that cannot be used. Carries every problem found, not just the first, so that an operator can fix a
 * file in one pass; each problem reads {@code path.to.field: what is wrong}.
 */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    public ConfigException(List<String> problems) {
        this(problems, null);
    }

    public ConfigException(String problem) {
        this(List.of(problem), null);
    }

    public ConfigException(String problem, Throwable cause) {
        this(List.of(problem), cause);
    }

    public ConfigException(List<String> problems, Throwable cause) {
        super(render(problems), cause);
        this.problems = List.copyOf(problems);
    }

    /** The individual problems, in the order they were found. */
    public List<String> problems() {
        return problems;
    }

    private static String render(List<String> problems) {
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("a ConfigException needs at least one problem");
        }
        if (problems.size() == 1) {
            return "Invalid configuration: " + problems.get(0);
        }
        StringBuilder text = new StringBuilder("Invalid configuration (").append(problems.size()).append(" problems):");
        problems.forEach(p -> text.append(System.lineSeparator()).append("  - ").append(p));
        return text.toString();
    }
}
