package io.sluice.logging;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The logging settings an operator sets in the environment, which logback.xml reads. Logback itself takes a level it
 * does not know as DEBUG and an unknown format as "log nothing", so a typo would either flood the log or silence it;
 * the launcher checks them here before anything logs and refuses to start instead.
 */
public final class LogSettings {

    /** Level of the io.sluice loggers. */
    public static final String LEVEL = "SLUICE_LOG_LEVEL";
    /** Level of every other logger. */
    public static final String ROOT_LEVEL = "SLUICE_LOG_LEVEL_ROOT";
    /** {@code text} or {@code json}. */
    public static final String FORMAT = "SLUICE_LOG_FORMAT";

    private static final Set<String> LEVELS = Set.of("ALL", "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF");
    // Case matters: logback.xml refers to its appenders by these names.
    private static final Set<String> FORMATS = Set.of("text", "json");

    private LogSettings() {
    }

    /** Problems with the settings of this process: its system properties first (logback reads them first), then its environment. */
    public static List<String> problems() {
        Map<String, String> env = System.getenv();
        return problems(name -> {
            String property = System.getProperty(name);
            return property != null ? property : env.get(name);
        });
    }

    /** @param settings a setting's value by name, null when unset */
    static List<String> problems(UnaryOperator<String> settings) {
        List<String> problems = new ArrayList<>();
        for (String name : List.of(LEVEL, ROOT_LEVEL)) {
            String value = settings.apply(name);
            if (value != null && !LEVELS.contains(value.toUpperCase(Locale.ROOT))) {
                problems.add(name + ": '" + value + "' is not a level (TRACE, DEBUG, INFO, WARN, ERROR or OFF)");
            }
        }
        String format = settings.apply(FORMAT);
        if (format != null && !FORMATS.contains(format)) {
            problems.add(FORMAT + ": '" + format + "' is not a log format (text or json)");
        }
        return problems;
    }
}
