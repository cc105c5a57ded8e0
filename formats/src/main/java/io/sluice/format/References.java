package io.sluice.format;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import io.sluice.format.registry.RegisteredSchema;
import io.sluice.format.registry.SchemaReference;
import io.sluice.format.registry.SchemaSource;
import io.sluice.format.registry.SchemaUnavailableException;

/** The schemas a registered schema imports, transitively, fetched from the registry with a bound on their number. */
final class References {

    private References() {
    }

    /**
     * Every schema {@code root} references, directly or not, by the name the referring schema uses, dependencies before
     * the schemas that use them (what Avro's parser needs: named types defined before use). Cycles are cut.
     */
    static Map<String, RegisteredSchema> resolve(SchemaSource source, RegisteredSchema root, int maxReferences)
            throws SchemaUnavailableException, ParsedSchemas.SchemaException {
        Map<String, RegisteredSchema> ordered = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        int[] fetched = {0};
        visit(source, root, ordered, seen, fetched, maxReferences, new ArrayDeque<>());
        return ordered;
    }

    private static void visit(SchemaSource source, RegisteredSchema schema, Map<String, RegisteredSchema> ordered,
                              Set<String> seen, int[] fetched, int max, Deque<String> path)
            throws SchemaUnavailableException, ParsedSchemas.SchemaException {
        for (SchemaReference reference : schema.references()) {
            if (!seen.add(reference.name())) {
                continue;
            }
            if (++fetched[0] > max) {
                throw new ParsedSchemas.SchemaException("more than " + max + " referenced schemas");
            }
            RegisteredSchema referenced = source.bySubjectVersion(reference.subject(), reference.version());
            path.push(reference.name());
            if (path.size() > max) {
                throw new ParsedSchemas.SchemaException("references nested deeper than " + max);
            }
            visit(source, referenced, ordered, seen, fetched, max, path);
            path.pop();
            ordered.put(reference.name(), referenced);
        }
    }
}
