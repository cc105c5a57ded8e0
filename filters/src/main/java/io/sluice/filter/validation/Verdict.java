package io.sluice.filter.validation;

import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/** What the check of one record part found; on the event loop, never waiting. */
sealed interface Verdict {

    /** Why a record part was refused, as counted ({@code reason} tag: a few fixed values). */
    enum Reason {
        /** A null key or value where the rule refuses nulls. */
        NULL,
        /** No Confluent header (magic byte 0 and a schema id). */
        NO_HEADER,
        /** The id is not in the registry. */
        UNKNOWN_SCHEMA,
        /** The id names a schema of another language, or one that does not parse. */
        WRONG_SCHEMA,
        /** The schema is not registered under the subject, or is not its latest version. */
        SUBJECT,
        /** The payload does not decode against the schema, or breaks the JSON Schema, or is not JSON. */
        PAYLOAD;

        String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    Verdict CONFORMS = new Conforms();

    /** The part is what its rule asks for. */
    record Conforms() implements Verdict {
    }

    /** @param message for the producer: which check failed and why, never the record's bytes */
    record Refused(Reason reason, String message) implements Verdict {
    }

    /** The registry could not give what the check needs: the rule's {@code onRegistryOutage} decides. */
    record Outage() implements Verdict {
    }

    /** A lookup runs on a lookup thread; check again when {@code ready} completes (it never fails). */
    record Pending(CompletableFuture<Void> ready) implements Verdict {
    }
}
