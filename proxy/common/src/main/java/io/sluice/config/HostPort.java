package io.sluice.config;

import java.util.Objects;
import java.util.regex.Pattern;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * A host (name or IP literal, possibly empty for "all interfaces") and a port. IPv6 literals are held without
 * brackets and written with them, so {@code parse(hp.toString())} gives {@code hp} back.
 */
public record HostPort(String host, int port) {

    private static final Pattern HOST_NAME = Pattern.compile("[A-Za-z0-9._-]*");
    // Hex digits, colons, embedded IPv4 dots, and a %zone suffix.
    private static final Pattern IPV6_LITERAL = Pattern.compile("[0-9A-Fa-f:.]+(%[A-Za-z0-9._-]+)?");

    public HostPort {
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is out of range 0..65535");
        }
    }

    /**
     * Parses {@code host:port}, {@code [ipv6]:port} or {@code :port} (all interfaces).
     *
     * @throws IllegalArgumentException naming what is wrong with the text
     */
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static HostPort parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("expected host:port but the value is empty");
        }
        String trimmed = text.strip();
        String host;
        String portText;
        if (trimmed.startsWith("[")) {
            int close = trimmed.indexOf(']');
            if (close < 0) {
                throw invalid(text, "missing ']' after the IPv6 address");
            }
            host = trimmed.substring(1, close);
            if (!IPV6_LITERAL.matcher(host).matches() || !host.contains(":")) {
                throw invalid(text, "'" + host + "' is not an IPv6 address");
            }
            String rest = trimmed.substring(close + 1);
            if (!rest.startsWith(":")) {
                throw invalid(text, "expected ':port' after ']'");
            }
            portText = rest.substring(1);
        }
        else {
            int colon = trimmed.lastIndexOf(':');
            if (colon < 0) {
                throw invalid(text, "the port is missing");
            }
            host = trimmed.substring(0, colon);
            if (host.contains(":") && IPV6_LITERAL.matcher(host).matches()) {
                throw invalid(text, "IPv6 addresses must be written in brackets, e.g. [::1]:9092");
            }
            if (!HOST_NAME.matcher(host).matches()) {
                throw invalid(text, "'" + host + "' is not a valid host name");
            }
            portText = trimmed.substring(colon + 1);
        }
        return new HostPort(host, parsePort(text, portText));
    }

    /** True for addresses that mean "every local interface" when bound: empty, {@code 0.0.0.0} or {@code ::}. */
    public boolean wildcard() {
        return host.isEmpty() || host.equals("0.0.0.0") || host.equals("::") || host.equals("0:0:0:0:0:0:0:0");
    }

    @JsonValue
    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    private static int parsePort(String text, String portText) {
        if (portText.isEmpty()) {
            throw invalid(text, "the port is missing");
        }
        if (!portText.chars().allMatch(c -> c >= '0' && c <= '9') || portText.length() > 5) {
            throw invalid(text, "'" + portText + "' is not a port number");
        }
        int port = Integer.parseInt(portText);
        if (port > 65535) {
            throw invalid(text, "port " + port + " is out of range 0..65535");
        }
        return port;
    }

    private static IllegalArgumentException invalid(String text, String why) {
        return new IllegalArgumentException("invalid host:port '" + text + "': " + why);
    }
}
