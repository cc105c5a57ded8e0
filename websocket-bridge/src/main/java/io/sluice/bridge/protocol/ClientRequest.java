package io.sluice.bridge.protocol;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

import io.sluice.bridge.selection.SubscriptionFilter;
import io.sluice.bridge.selection.Projection;

/** What a client can ask, one record per message type of docs/bridge-protocol.md. {@code id} is echoed in the reply. */
public sealed interface ClientRequest {

    Long id();

    record Connect(Long id, String token) implements ClientRequest {
    }

    record Refresh(Long id, String token) implements ClientRequest {
    }

    /**
     * @param recover  the last position the client has per partition of this subscription; empty for live only
     * @param snapshot whether to start with the latest cached message of each endpoint (ignored with {@code recover})
     * @param delta    whether to receive JSON Patch deltas instead of full JSON payloads where possible
     */
    /** {@code filter} and {@code fields} are null when not given (every record, whole payloads). */
    record Subscribe(Long id, String endpoint, List<Position> recover, boolean snapshot, boolean delta, SubscriptionFilter filter,
                     Projection fields) implements ClientRequest {

        public Subscribe(Long id, String endpoint, List<Position> recover, boolean snapshot, boolean delta) {
            this(id, endpoint, recover, snapshot, delta, null, null);
        }
    }

    record Unsubscribe(Long id, String endpoint) implements ClientRequest {
    }

    record Publish(Long id, String endpoint, PayloadFormat format, JsonNode payload) implements ClientRequest {
    }

    /** The last message a client saw in one partition: {@code epoch} as it was sent, {@code seq} its offset. */
    record Position(String epoch, long seq) {
    }
}
