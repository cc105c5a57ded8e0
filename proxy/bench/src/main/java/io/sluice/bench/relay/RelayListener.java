package io.sluice.bench.relay;

import java.util.Map;

/**
 * The broker properties that give a {@code LocalKafka} a second client listener, {@code RELAY}, whose advertised
 * address is the relay's: a client that bootstraps through the relay then gets Metadata naming the relay, and every
 * later connection goes through it too, as through the proxy. Without it the relay would carry only the first request
 * and the load would go to the broker directly.
 * <p>
 * LocalKafka writes PLAINTEXT and CONTROLLER listeners on ports it picks; these properties replace its listener and
 * quorum settings with the same layout on ports chosen here, plus RELAY (its node is 1, as LocalKafka's).
 *
 * @param brokerPort     the PLAINTEXT port, as given to LocalKafka (its own clients and the proxies use it)
 * @param controllerPort the KRaft controller's port
 * @param relayPort      the broker's RELAY port, which only the relay connects to
 * @param advertisedPort the relay's own port on 127.0.0.1, which RELAY advertises
 */
public record RelayListener(int brokerPort, int controllerPort, int relayPort, int advertisedPort) {

    public static final String NAME = "RELAY";

    public RelayListener {
        requirePort("brokerPort", brokerPort);
        requirePort("controllerPort", controllerPort);
        requirePort("relayPort", relayPort);
        requirePort("advertisedPort", advertisedPort);
    }

    /** The properties to pass as LocalKafka's extra broker properties. */
    public Map<String, String> brokerProperties() {
        return Map.of(
                "listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort + "," + NAME + "://127.0.0.1:" + relayPort,
                "advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + "," + NAME + "://127.0.0.1:" + advertisedPort,
                "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT," + NAME + ":PLAINTEXT",
                "controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    }

    /** Where the relay forwards to. */
    public String relayUpstream() {
        return "127.0.0.1:" + relayPort;
    }

    private static void requirePort(String field, int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(field + " must be a port (1-65535), not " + port);
        }
    }
}
