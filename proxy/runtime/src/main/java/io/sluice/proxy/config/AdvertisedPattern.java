package io.sluice.proxy.config;

import java.util.OptionalInt;
import io.sluice.config.HostPort;

/** An advertised broker address pattern with {@code $(nodeId)} filled in, split into host and optional port. */
record AdvertisedPattern(String host, OptionalInt port) {

    /**
     * @throws IllegalArgumentException if the pattern has an unknown placeholder or is not {@code host} or
     *         {@code host:port}
     */
    static AdvertisedPattern parse(String pattern, int nodeId) {
        String text = pattern.replace(PortIdentifiesNodeConfig.NODE_ID_TOKEN, Integer.toString(nodeId));
        if (text.contains("$(")) {
            throw new IllegalArgumentException("only the " + PortIdentifiesNodeConfig.NODE_ID_TOKEN + " placeholder is supported");
        }
        if (text.isBlank()) {
            throw new IllegalArgumentException("must not be empty");
        }
        boolean bracketedWithoutPort = text.startsWith("[") && text.endsWith("]");
        if (bracketedWithoutPort || text.indexOf(':') < 0) {
            // Borrow the host:port grammar for the host alone; the port appended here is never used.
            try {
                return new AdvertisedPattern(HostPort.parse(text + ":1").host(), OptionalInt.empty());
            }
            catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("'" + text + "' is not a valid host name");
            }
        }
        HostPort parsed = HostPort.parse(text);
        if (parsed.host().isEmpty()) {
            throw new IllegalArgumentException("the host is missing");
        }
        if (parsed.port() == 0) {
            throw new IllegalArgumentException("the port must be between 1 and 65535");
        }
        return new AdvertisedPattern(parsed.host(), OptionalInt.of(parsed.port()));
    }
}
