package io.sluice.filter.audit;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Instant;

import io.sluice.proxy.filter.FilterContext;

/**
 * What every event of one client connection says about it: virtual cluster, session id, client address. Read once,
 * when the connection opens.
 */
record Session(String virtualCluster, String sessionId, String clientAddress) {

    static Session of(FilterContext context) {
        return new Session(context.virtualClusterName(), context.sessionId(), address(context.clientAddress()));
    }

    /** {@code host:port} ({@code [v6]:port}), without the resolved-name prefix {@link InetSocketAddress#toString} adds. */
    static String address(SocketAddress address) {
        if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
            String host = inet.getAddress().getHostAddress();
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + inet.getPort();
        }
        return address == null ? null : address.toString();
    }

    AuditEvent event(EventType type, Instant time, String principal) {
        return new AuditEvent(type, time, virtualCluster, sessionId, clientAddress, principal, sessionId);
    }
}
