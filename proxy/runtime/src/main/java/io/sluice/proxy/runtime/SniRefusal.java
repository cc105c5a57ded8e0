package io.sluice.proxy.runtime;

import java.util.Arrays;
import java.util.List;

/**
 * Why an SNI listener refused a connection before it reached a gateway: the {@code reason} label of
 * {@code sluice_sni_refused_total}. A fixed set, so the metric's cardinality is too.
 */
public enum SniRefusal {
    /** A ClientHello without a server name (a client given an IP address, or told not to send one). */
    NO_SNI("no_sni", true),
    /** A server name that is no gateway's bootstrap and no broker name on this port. */
    UNKNOWN_NAME("unknown_name", true),
    /** A broker name whose node id the target cluster does not have, even after a discovery round. */
    UNKNOWN_NODE("unknown_node", true),
    /** The first bytes were not a TLS ClientHello (a plaintext Kafka client, say). */
    NOT_TLS("not_tls", false),
    /** A ClientHello longer than the listener accepts ({@link SniRouter#MAX_CLIENT_HELLO_BYTES}). */
    CLIENT_HELLO_TOO_LARGE("client_hello_too_large", false),
    /** No complete ClientHello, or no route for it, within network.preAuthentication.timeout. */
    TIMEOUT("timeout", false),
    /** As many connections as the clusters on the port accept in all were already waiting for their ClientHello. */
    TOO_MANY_HANDSHAKES("too_many_handshakes", false);

    private final String label;
    private final boolean alert;

    SniRefusal(String label, boolean alert) {
        this.label = label;
        this.alert = alert;
    }

    public String label() {
        return label;
    }

    /**
     * Whether the client is told with a TLS {@code unrecognized_name} alert before the close: it spoke TLS and its
     * name is the problem. The others get a bare close (a plaintext client would misread an alert's bytes).
     */
    boolean alert() {
        return alert;
    }

    public static List<String> labels() {
        return Arrays.stream(values()).map(SniRefusal::label).toList();
    }
}
