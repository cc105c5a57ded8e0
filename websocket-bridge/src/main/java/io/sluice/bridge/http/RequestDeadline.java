package io.sluice.bridge.http;

import java.time.Duration;

import io.sluice.bridge.config.ConnectionsConfig;

/**
 * The request-completion deadline, named once: how long a client may take to send an HTTP request whole. In, the
 * listener's connection limits; out, the duration. On HTTP/1.1 it runs from the previous answer (so it is also a
 * keep-alive connection's idle timeout: {@code server.ConnectionAdmission}); on HTTP/2 from a stream's opening to its
 * END_STREAM ({@link StreamRequest}), and it is how long a connection may have no stream open ({@link Http2Connections}).
 *
 * <p>It has no setting of its own: the value is {@code connections.handshakeTimeout}, the deadline a connection that
 * has not upgraded has from its accept, so that one value bounds every wait for a client's bytes before it
 * authenticates. A setting of its own would be a configuration change; this is the one place it would be read.</p>
 */
public final class RequestDeadline {

    private RequestDeadline() {
    }

    /** {@code connections.handshakeTimeout}, as the request-completion deadline. */
    public static Duration of(ConnectionsConfig limits) {
        return limits.handshakeTimeout();
    }
}
