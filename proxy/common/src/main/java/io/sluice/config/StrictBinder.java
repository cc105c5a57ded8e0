package io.sluice.config;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;

/**
 * Binds a tree to a type and reports every unknown field, not only the first. Jackson stops at the first one, so each
 * unknown field is recorded, cut from a private copy of the tree, and binding retried. The retry costs little for a
 * configuration file, and unlike collecting the fields in a problem handler it gets Jackson's own exact path for each
 * field (creator-bound records replay unknown fields from a buffer whose parser nesting no longer matches the file).
 */
final class StrictBinder {

    // Far more than any file has unknown fields; only guards against a field that somehow cannot be cut.
    private static final int MAX_UNKNOWN_FIELDS = 200;

    private StrictBinder() {
    }

    static <T> T bind(ObjectMapper mapper, JsonNode node, Class<T> type, String prefix) {
        JsonNode tree = node.deepCopy();
        List<String> problems = new ArrayList<>();
        while (true) {
            try {
                T value = mapper.readerFor(type).readValue(tree);
                if (value == null) {
                    problems.add(BindingErrors.join(prefix, "") + ": must not be empty");
                }
                if (!problems.isEmpty()) {
                    throw new ConfigException(problems);
                }
                return value;
            }
            catch (UnrecognizedPropertyException e) {
                problems.add(BindingErrors.describe(e, prefix));
                if (problems.size() >= MAX_UNKNOWN_FIELDS || !cut(tree, e.getPath())) {
                    throw new ConfigException(problems, e);
                }
            }
            catch (JsonMappingException e) {
                problems.add(BindingErrors.describe(e, prefix));
                throw new ConfigException(problems, e);
            }
            catch (IOException e) {
                problems.add(BindingErrors.join(prefix, "") + ": " + e.getMessage());
                throw new ConfigException(problems, e);
            }
        }
    }

    /** Removes the field the path ends at; false if the path does not lead to an object field. */
    private static boolean cut(JsonNode tree, List<JsonMappingException.Reference> path) {
        if (path.isEmpty()) {
            return false;
        }
        JsonNode node = tree;
        for (JsonMappingException.Reference ref : path.subList(0, path.size() - 1)) {
            node = ref.getFieldName() != null ? node.get(ref.getFieldName()) : node.get(ref.getIndex());
            if (node == null) {
                return false;
            }
        }
        String field = path.get(path.size() - 1).getFieldName();
        return field != null && node instanceof ObjectNode object && object.remove(field) != null;
    }
}
