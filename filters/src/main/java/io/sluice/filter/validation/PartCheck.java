package io.sluice.filter.validation;

import java.util.EnumMap;
import java.util.Map;

import io.sluice.format.ConfluentWireFormat;
import io.sluice.format.DecodeException;
import io.sluice.format.DecodeOutageException;
import io.sluice.format.JsonCodec;
import io.sluice.format.RecordPart;
import io.sluice.format.SchemaCodec;
import io.sluice.format.SchemaPendingException;
import io.sluice.format.SchemaRecord;
import io.sluice.format.SubjectNameStrategy;
import io.sluice.format.UnknownSchemaIdException;
import io.sluice.format.registry.CachingSchemaSource;
import io.sluice.format.registry.RegisteredSchema;
import io.sluice.format.registry.SchemaType;
import io.sluice.format.registry.SchemaUnavailableException;

/**
 * What one side (key or value) of a rule's topics must be, checked for one record part without ever waiting: the
 * Confluent header, the schema its id names (of the rule's language), the subject that schema must be registered under
 * (by the rule's naming strategy, as any version or the latest), and, with {@code decode}, the payload against it. A
 * lookup the cache cannot answer yet is started on the registry's lookup threads and the verdict is pending. Plain
 * {@code json} is parsed only. Thread-safe: shared by every connection of the filter definition.
 */
final class PartCheck {

    /** The formats a rule may require. */
    enum Format {
        AVRO("avro"), PROTOBUF("protobuf"), JSON_SCHEMA("json-schema"), JSON("json"), ANY("any");

        final String yaml;

        Format(String yaml) {
            this.yaml = yaml;
        }

        static Format of(String text) {
            for (Format f : values()) {
                if (f.yaml.equals(text)) {
                    return f;
                }
            }
            return null;
        }

        boolean needsRegistry() {
            return this != JSON;
        }
    }

    private final RecordPart part;
    private final Format format;
    private final SubjectNameStrategy strategy;
    private final boolean latest;
    private final boolean decode;
    private final boolean refuseNull;
    private final CachingSchemaSource registry;
    /** The codec of each schema language this check reads: one for a single format, all three for {@code any}. */
    private final Map<SchemaType, SchemaCodec> codecs;
    private final JsonCodec json;

    PartCheck(RecordPart part, Format format, SubjectNameStrategy strategy, boolean latest, boolean decode, boolean refuseNull,
              CachingSchemaSource registry, Map<SchemaType, SchemaCodec> codecs, JsonCodec json) {
        this.part = part;
        this.format = format;
        this.strategy = strategy;
        this.latest = latest;
        this.decode = decode;
        this.refuseNull = refuseNull;
        this.registry = registry;
        this.codecs = new EnumMap<>(codecs);
        this.json = json;
    }

    RecordPart part() {
        return part;
    }

    Verdict check(String topic, byte[] bytes) {
        if (bytes == null) {
            return refuseNull ? refused(Verdict.Reason.NULL, "is null, and the rule refuses nulls") : Verdict.CONFORMS;
        }
        if (format == Format.JSON) {
            try {
                json.decode(topic, bytes);
                return Verdict.CONFORMS;
            }
            catch (DecodeException e) {
                return refused(Verdict.Reason.PAYLOAD, e.getMessage());
            }
        }
        int id;
        try {
            id = ConfluentWireFormat.schemaId(bytes);
        }
        catch (DecodeException e) {
            return refused(Verdict.Reason.NO_HEADER, e.getMessage());
        }
        SchemaType required = schemaType(format);
        SchemaCodec codec = required == null ? null : codecs.get(required);
        if (codec == null) {
            // any: the registered schema's own language.
            RegisteredSchema known;
            try {
                known = registry.cachedById(id);
            }
            catch (SchemaUnavailableException e) {
                return e.notFound() ? refused(Verdict.Reason.UNKNOWN_SCHEMA, "unknown schema id " + id) : new Verdict.Outage();
            }
            if (known == null) {
                return new Verdict.Pending(registry.loadAsync(id, () -> fetch(id)));
            }
            codec = codecs.get(known.type());
        }
        SchemaRecord record;
        try {
            record = codec.read(bytes, false);
        }
        catch (DecodeException | SchemaPendingException e) {
            // A schema of another language or one that does not parse, or a message-index path naming no type in it.
            return failed(e, Verdict.Reason.WRONG_SCHEMA);
        }
        Verdict subject = subject(topic, record);
        if (subject != Verdict.CONFORMS || !decode) {
            return subject;
        }
        try {
            // The schema is parsed and at hand now: this read does not wait either.
            codec.read(bytes, true);
            return Verdict.CONFORMS;
        }
        catch (DecodeException | SchemaPendingException e) {
            return failed(e, Verdict.Reason.PAYLOAD);
        }
    }

    /** What a read that threw says: wait, an outage, an unknown id, or a refusal for {@code reason}. */
    private Verdict failed(Exception e, Verdict.Reason reason) {
        if (e instanceof SchemaPendingException pending) {
            return new Verdict.Pending(pending.ready());
        }
        if (e instanceof DecodeOutageException) {
            return new Verdict.Outage();
        }
        return refused(e instanceof UnknownSchemaIdException ? Verdict.Reason.UNKNOWN_SCHEMA : reason, e.getMessage());
    }

    private Verdict subject(String topic, SchemaRecord record) {
        String subject = strategy.subject(topic, part, record.recordName());
        if (subject == null) {
            return refused(Verdict.Reason.SUBJECT, "schema id " + record.schemaId() + " has no record name (a JSON Schema's title) for the "
                    + strategy.yaml() + " subject name strategy");
        }
        RegisteredSchema found;
        try {
            found = latest ? registry.cachedLatest(subject) : registry.cachedLookUp(subject, record.schemaId());
        }
        catch (SchemaUnavailableException e) {
            if (!e.notFound()) {
                return new Verdict.Outage();
            }
            return refused(Verdict.Reason.SUBJECT, latest ? "no schema is registered under subject " + subject
                    : "schema id " + record.schemaId() + " is not registered under subject " + subject);
        }
        if (found == null) {
            return new Verdict.Pending(latest ? registry.loadLatestAsync(subject) : registry.loadLookUpAsync(subject, record.schemaId()));
        }
        if (found.id() != record.schemaId()) {
            return refused(Verdict.Reason.SUBJECT, latest
                    ? "schema id " + record.schemaId() + " is not the latest version of subject " + subject + " (schema id " + found.id() + " is)"
                    : "schema id " + record.schemaId() + " is registered under subject " + subject + " as schema id " + found.id());
        }
        return Verdict.CONFORMS;
    }

    private Verdict refused(Verdict.Reason reason, String message) {
        return new Verdict.Refused(reason, (part == RecordPart.KEY ? "key " : "value ") + message);
    }

    private void fetch(int id) {
        try {
            registry.byId(id);
        }
        catch (SchemaUnavailableException e) {
            // Remembered by the cache: the next check meets it at once.
        }
    }

    private static SchemaType schemaType(Format format) {
        return switch (format) {
            case AVRO -> SchemaType.AVRO;
            case PROTOBUF -> SchemaType.PROTOBUF;
            case JSON_SCHEMA -> SchemaType.JSON;
            default -> null;
        };
    }
}
