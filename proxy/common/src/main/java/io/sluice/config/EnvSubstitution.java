package io.sluice.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

/**
 * Replaces {@code ${VAR}} and {@code ${VAR:-default}} in the string scalars and keys of a parsed YAML tree.
 * Working on the tree rather than the raw text means a value such as {@code a: b # c} from the environment stays one
 * string instead of changing the document's structure. {@code $${X}} stands for a literal {@code ${X}}.
 * Substituted text is not scanned again, so the environment cannot inject further references.
 */
final class EnvSubstitution {

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final Map<String, String> env;
    private final List<String> problems = new ArrayList<>();

    private EnvSubstitution(Map<String, String> env) {
        this.env = env;
    }

    /** Substitutes in place and returns the problems found, each naming the field; empty when all went well. */
    static List<String> apply(JsonNode root, Map<String, String> env) {
        EnvSubstitution substitution = new EnvSubstitution(env);
        substitution.walk(root, "");
        return substitution.problems;
    }

    private void walk(JsonNode node, String path) {
        if (node instanceof ObjectNode object) {
            walkObject(object, path);
        }
        else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                String itemPath = path + "[" + i + "]";
                JsonNode item = array.get(i);
                if (item.isTextual()) {
                    array.set(i, TextNode.valueOf(substitute(item.textValue(), itemPath)));
                }
                else {
                    walk(item, itemPath);
                }
            }
        }
    }

    private void walkObject(ObjectNode object, String path) {
        Map<String, JsonNode> rebuilt = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> field : object.properties()) {
            String fieldPath = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
            String key = substitute(field.getKey(), fieldPath);
            JsonNode value = field.getValue();
            if (value.isTextual()) {
                value = TextNode.valueOf(substitute(value.textValue(), fieldPath));
            }
            else {
                walk(value, fieldPath);
            }
            if (rebuilt.put(key, value) != null) {
                problems.add(fieldPath + ": becomes the duplicate field '" + key + "' after substitution");
            }
        }
        // Rebuilding keeps field order, which matters for error messages and for order-sensitive filter configs.
        object.removeAll();
        object.setAll(rebuilt);
    }

    private String substitute(String text, String path) {
        if (text.indexOf('$') < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        int i = 0;
        while (i < text.length()) {
            if (text.startsWith("$${", i)) {
                out.append("${");
                i += 3;
            }
            else if (text.startsWith("${", i)) {
                int close = text.indexOf('}', i + 2);
                if (close < 0) {
                    problems.add(path + ": unterminated '${' in '" + text + "'");
                    return text;
                }
                out.append(resolve(text.substring(i + 2, close), path));
                i = close + 1;
            }
            else {
                out.append(text.charAt(i++));
            }
        }
        return out.toString();
    }

    private String resolve(String reference, String path) {
        int separator = reference.indexOf(":-");
        String name = separator < 0 ? reference : reference.substring(0, separator);
        if (!NAME.matcher(name).matches()) {
            problems.add(path + ": '${" + reference + "}' is not a valid variable reference");
            return "";
        }
        String value = env.get(name);
        if (separator >= 0 && (value == null || value.isEmpty())) {
            return reference.substring(separator + 2);
        }
        if (value == null) {
            problems.add(path + ": environment variable " + name + " is not set");
            return "";
        }
        return value;
    }
}
