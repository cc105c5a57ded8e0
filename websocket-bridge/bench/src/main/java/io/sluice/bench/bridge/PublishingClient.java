package io.sluice.bench.bridge;

import java.util.BitSet;

/** One bench client publishing into Kafka through the bridge, over WebSocket ({@link PublisherConnection}) or MQTT ({@link MqttPublisherConnection}). */
interface PublishingClient {

    /** Its number: publishes carry {@code <client>:<index>}. */
    int client();

    /** Starts publishing every {@code periodNanos}, the first at {@code firstDue} ({@link LatencyStamp#now()} clock). */
    void start(long firstDue, long periodNanos);

    /** Stops publishing; what was sent is still acked. */
    void stop();

    /** The publish indexes acked so far: a copy. */
    BitSet acked();
}
