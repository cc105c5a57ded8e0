package io.sluice.filter.audit;

import java.util.Map;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;

/**
 * One thing a request names, as an event shows it: a type ({@code topic}, {@code group}, {@code transactionalId},
 * {@code acl}, ...), a name (null when the request names none) and what the request asks of it ({@code details}, empty
 * when it asks nothing beyond the API). Built only from fields {@link Secrets} allows.
 */
record Resource(String type, String name, Map<String, Object> details) {

    static final String TOPIC = "topic";
    static final String GROUP = "group";
    static final String TRANSACTIONAL_ID = "transactionalId";
    static final String CLUSTER = "cluster";

    Resource {
        name = Secrets.text(name);
        details = details == null ? Map.of() : details;
    }

    static Resource of(String type, String name) {
        return new Resource(type, name, Map.of());
    }

    /** A topic by name, or by id where the message carries only its id (Produce and Fetch v13+, OffsetCommit v10+). */
    static String topicName(String name, Uuid id) {
        if (name != null && !name.isEmpty()) {
            return name;
        }
        return id == null || Uuid.ZERO_UUID.equals(id) ? "" : id.toString();
    }

    /** A config resource's type as events name it. */
    static String configResourceType(byte id) {
        ConfigResource.Type type = ConfigResource.Type.forId(id);
        return switch (type) {
            case TOPIC -> TOPIC;
            case BROKER -> "broker";
            case BROKER_LOGGER -> "brokerLogger";
            case CLIENT_METRICS -> "clientMetrics";
            case GROUP -> GROUP;
            default -> "unknown";
        };
    }

    /** FindCoordinator's key types: 0 a group, 1 a transactional id, 2 a share group. */
    static String coordinatorKeyType(byte keyType) {
        return keyType == 1 ? TRANSACTIONAL_ID : GROUP;
    }
}
