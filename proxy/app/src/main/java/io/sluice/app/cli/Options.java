package io.sluice.app.cli;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** {@code --name value} and {@code --flag} arguments; unknown names are usage errors. */
public final class Options {

    private final Map<String, String> values = new HashMap<>();

    private Options() {
    }

    /** @param known option names without dashes; those ending in '!' are flags without a value */
    public static Options parse(List<String> args, String... known) {
        Options o = new Options();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (!arg.startsWith("--")) {
                throw new UsageException("unexpected argument '" + arg + "'");
            }
            String name = arg.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq > 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            boolean flag = List.of(known).contains(name + "!");
            if (!flag && !List.of(known).contains(name)) {
                throw new UsageException("unknown option --" + name + " (known: --" + String.join(", --", known).replace("!", "") + ")");
            }
            if (flag) {
                value = "true";
            } else if (value == null) {
                if (i + 1 >= args.size()) {
                    throw new UsageException("--" + name + " needs a value");
                }
                value = args.get(++i);
            }
            o.values.put(name, value);
        }
        return o;
    }

    public String get(String name, String defaultValue) {
        return values.getOrDefault(name, defaultValue);
    }

    /** Whether an option was given at all, with or without a value. */
    public boolean has(String name) {
        return values.containsKey(name);
    }

    public boolean flag(String name) {
        return values.containsKey(name);
    }

    public int getInt(String name, int defaultValue) {
        String v = values.get(name);
        try {
            return v == null ? defaultValue : Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " must be a whole number, not '" + v + "'");
        }
    }

    /** A decimal number. */
    public double getDouble(String name, double defaultValue) {
        String v = values.get(name);
        try {
            return v == null ? defaultValue : Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " must be a number, not '" + v + "'");
        }
    }

    public String require(String name) {
        String v = values.get(name);
        if (v == null) {
            throw new UsageException("--" + name + " is required");
        }
        return v;
    }
}
