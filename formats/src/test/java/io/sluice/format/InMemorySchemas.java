package io.sluice.format;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.format.registry.RegisteredSchema;
import io.sluice.format.registry.SchemaReference;
import io.sluice.format.registry.SchemaSource;
import io.sluice.format.registry.SchemaType;
import io.sluice.format.registry.SchemaUnavailableException;

/** A registry in a map, for codec tests: ids from 1 up, versions per subject from 1 up; counts byId calls. */
final class InMemorySchemas implements SchemaSource {

    private final Map<Integer, RegisteredSchema> byId = new HashMap<>();
    private final Map<String, Map<Integer, RegisteredSchema>> bySubject = new HashMap<>();
    private final AtomicInteger byIdCalls = new AtomicInteger();
    private int nextId = 1;

    synchronized RegisteredSchema register(String subject, SchemaType type, String text, SchemaReference... refs) {
        RegisteredSchema schema = new RegisteredSchema(nextId++, type, text, List.of(refs));
        byId.put(schema.id(), schema);
        Map<Integer, RegisteredSchema> versions = bySubject.computeIfAbsent(subject, s -> new HashMap<>());
        versions.put(versions.size() + 1, schema);
        return schema;
    }

    int byIdCalls() {
        return byIdCalls.get();
    }

    @Override
    public synchronized RegisteredSchema byId(int id) throws SchemaUnavailableException {
        byIdCalls.incrementAndGet();
        RegisteredSchema schema = byId.get(id);
        if (schema == null) {
            throw new SchemaUnavailableException("schema id " + id + " not found", true);
        }
        return schema;
    }

    @Override
    public synchronized RegisteredSchema latest(String subject) throws SchemaUnavailableException {
        Map<Integer, RegisteredSchema> versions = bySubject.get(subject);
        if (versions == null) {
            throw new SchemaUnavailableException("subject " + subject + " not found", true);
        }
        return versions.get(versions.size());
    }

    @Override
    public synchronized RegisteredSchema bySubjectVersion(String subject, int version) throws SchemaUnavailableException {
        Map<Integer, RegisteredSchema> versions = bySubject.get(subject);
        RegisteredSchema schema = versions == null ? null : versions.get(version);
        if (schema == null) {
            throw new SchemaUnavailableException(subject + " version " + version + " not found", true);
        }
        return schema;
    }
}
