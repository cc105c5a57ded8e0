package io.sluice.format;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.slf4j.LoggerFactory;

import io.sluice.format.registry.RegisteredSchema;
import io.sluice.format.registry.SchemaSource;
import io.sluice.format.registry.SchemaUnavailableException;
import io.sluice.logging.RateLimitedByCause;

/**
 * A codec's parsed schemas by registry id, least recently used evicted beyond a bound. Ids are immutable, so a schema
 * that does not parse is remembered as such too (one parse attempt per id while it stays cached, not one per record).
 * Fetching and parsing happen outside the lock: two threads may parse the same id once each, which is harmless.
 */
final class ParsedSchemas<T> {

    private static final RateLimitedByCause OUTAGES = new RateLimitedByCause(LoggerFactory.getLogger(ParsedSchemas.class));

    /** Turns a registered schema into what the codec uses; a {@link SchemaException} means it never will. */
    interface Parser<T> {
        T parse(RegisteredSchema schema) throws SchemaException, SchemaUnavailableException;
    }

    /** A registered schema that this codec cannot use (wrong type, does not parse, too many references). */
    static final class SchemaException extends Exception {
        SchemaException(String message, Throwable cause) {
            super(message, cause);
        }

        SchemaException(String message) {
            super(message);
        }
    }

    private record Entry<T>(T parsed, String failure) {
    }

    private final SchemaSource source;
    private final Parser<T> parser;
    private final Map<Integer, Entry<T>> byId;

    ParsedSchemas(SchemaSource source, int maxEntries, Parser<T> parser) {
        this.source = source;
        this.parser = parser;
        this.byId = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Integer, Entry<T>> eldest) {
                return size() > maxEntries;
            }
        };
    }

    /** The parsed schema with this id; the message of a failure is fit for a client or a log line. */
    T byId(int id) throws SchemaException, SchemaUnavailableException {
        Entry<T> entry;
        synchronized (byId) {
            entry = byId.get(id);
        }
        if (entry == null) {
            entry = load(source.byId(id));
        }
        if (entry.failure != null) {
            throw new SchemaException(entry.failure);
        }
        return entry.parsed;
    }

    /**
     * The parsed schema with this id if it is here already, without asking the source: what a caller that must never
     * block uses after {@link #pending} said the id is ready. Null when it is not here (not loaded yet, or dropped
     * since); an unusable schema's failure is thrown as {@link #byId} would.
     */
    T ready(int id) throws SchemaException {
        Entry<T> entry;
        synchronized (byId) {
            entry = byId.get(id);
        }
        if (entry == null) {
            return null;
        }
        if (entry.failure != null) {
            throw new SchemaException(entry.failure);
        }
        return entry.parsed;
    }

    /**
     * Null when {@link #byId} of the id these bytes name answers without the registry (parsed already, a remembered
     * failure, or no id to read); otherwise the future of its load off the caller's thread ({@link SchemaSource#loadAsync}),
     * after which it does. See {@link Codec#pending}.
     */
    CompletableFuture<Void> pending(byte[] bytes) {
        int id;
        try {
            id = ConfluentWireFormat.schemaId(bytes);
        }
        catch (DecodeException e) {
            return null; // decoding fails at once
        }
        synchronized (byId) {
            if (byId.containsKey(id)) {
                return null;
            }
        }
        if (source.failsAtOnce(id)) {
            return null;
        }
        return source.loadAsync(id, () -> {
            try {
                byId(id);
            }
            catch (SchemaException | SchemaUnavailableException e) {
                // Remembered, here (unusable) or by the source (unavailable): the record's decoding meets it at once.
            }
            catch (RuntimeException | StackOverflowError e) {
                // A parser that gives up in its own way: the schema is unusable, once, not on every record's load.
                store(id, new Entry<>(null, "schema id " + id + " is unusable: " + e.getClass().getSimpleName()));
            }
        });
    }

    /**
     * The parsed schema with this id for {@link SchemaCodec#read}, never waiting for the registry: parsed already, or
     * a failure known at once (an unusable schema, a remembered "not found" or outage); otherwise its load and parse are
     * started on a lookup thread ({@link #pending}) and the caller is told to ask again. A source without lookup threads
     * (one that never blocks) is asked directly.
     */
    T readable(int id, byte[] bytes) throws DecodeException, SchemaPendingException {
        try {
            T parsed = ready(id);
            if (parsed != null) {
                return parsed;
            }
            source.cachedById(id);
            CompletableFuture<Void> loading = pending(bytes);
            if (loading != null) {
                throw new SchemaPendingException(loading);
            }
            return byId(id);
        }
        catch (SchemaException e) {
            throw new DecodeException(e.getMessage());
        }
        catch (SchemaUnavailableException e) {
            if (e.notFound()) {
                throw new UnknownSchemaIdException(id);
            }
            throw new DecodeOutageException(id);
        }
    }

    /** A subject's latest schema as the registry has it, and parsed. */
    record Latest<T>(RegisteredSchema registered, T parsed) {
    }

    /**
     * The latest schema of {@code subject}, parsed, for a publish (TopicNameStrategy): any failure is the publish's
     * refusal, with the subject named.
     */
    Latest<T> latest(String subject) throws EncodeException {
        try {
            RegisteredSchema latest = source.latest(subject);
            return new Latest<>(latest, of(latest));
        }
        catch (SchemaUnavailableException e) {
            if (e.notFound()) {
                throw new EncodeException("no schema registered under subject " + subject);
            }
            // The registry client's message names the registry (its URL, why a connection or TLS failed): the log's.
            OUTAGES.log(e, "The schema of subject {} for a publish is unavailable: {}", subject, e.getMessage());
            throw new SchemaOutageException(subject);
        }
        catch (SchemaException e) {
            throw new EncodeException("subject " + subject + ": " + e.getMessage());
        }
    }

    /** The parsed form of a schema already fetched (the subject's latest, for publish), cached by its id. */
    T of(RegisteredSchema schema) throws SchemaException, SchemaUnavailableException {
        Entry<T> entry;
        synchronized (byId) {
            entry = byId.get(schema.id());
        }
        if (entry == null) {
            entry = load(schema);
        }
        if (entry.failure != null) {
            throw new SchemaException(entry.failure);
        }
        return entry.parsed;
    }

    private Entry<T> load(RegisteredSchema schema) throws SchemaUnavailableException {
        Entry<T> entry;
        try {
            entry = new Entry<>(parser.parse(schema), null);
        }
        catch (SchemaException e) {
            entry = new Entry<>(null, "schema id " + schema.id() + " is unusable: " + e.getMessage());
        }
        store(schema.id(), entry);
        return entry;
    }

    private void store(int id, Entry<T> entry) {
        synchronized (byId) {
            byId.put(id, entry);
        }
    }

    int size() {
        synchronized (byId) {
            return byId.size();
        }
    }
}
