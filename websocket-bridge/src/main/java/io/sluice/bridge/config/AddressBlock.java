package io.sluice.bridge.config;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.regex.Pattern;

/**
 * A CIDR block ({@code 10.0.0.0/8}, {@code fd00::/8}; a bare address is a block of one). Only IP literals are
 * accepted, here and in {@link #literal}: text from configuration or from a client header must never trigger a DNS
 * lookup.
 */
public record AddressBlock(byte[] network, int prefixBits) {

    // Each octet 0-255 here: InetAddress.getByName looks up anything it cannot read as a literal.
    private static final Pattern IPV4 = Pattern.compile("((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");
    // With a colon, getByName either reads an IPv6 literal or fails; it never looks such a name up.
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*");

    /** @throws IllegalArgumentException saying what is wrong with {@code text} */
    public static AddressBlock parse(String text) {
        int slash = text.indexOf('/');
        InetAddress address = literal(slash < 0 ? text : text.substring(0, slash));
        if (address == null) {
            throw new IllegalArgumentException("'" + text + "' is not an IP address or CIDR block (e.g. 10.0.0.0/8)");
        }
        int max = address.getAddress().length * 8;
        int bits = max;
        if (slash >= 0) {
            try {
                bits = Integer.parseInt(text.substring(slash + 1));
            }
            catch (NumberFormatException e) {
                bits = -1;
            }
            if (bits < 0 || bits > max) {
                throw new IllegalArgumentException("'" + text + "': the prefix length must be between 0 and " + max);
            }
        }
        return new AddressBlock(address.getAddress(), bits);
    }

    /** The address written in {@code text}, or null when it is not an IPv4 or IPv6 literal. Never resolves names. */
    public static InetAddress literal(String text) {
        String t = text.strip();
        if (t.startsWith("[") && t.endsWith("]")) {
            t = t.substring(1, t.length() - 1);
        }
        if (t.isEmpty() || t.length() > 45 || !(IPV4.matcher(t).matches() || IPV6.matcher(t).matches())) {
            return null;
        }
        try {
            return InetAddress.getByName(t);
        }
        catch (UnknownHostException e) {
            return null;
        }
    }

    public boolean contains(InetAddress address) {
        byte[] a = address.getAddress();
        if (a.length != network.length && address instanceof Inet6Address && network.length == 4) {
            a = ipv4Mapped(a);
        }
        if (a == null || a.length != network.length) {
            return false;
        }
        int full = prefixBits / 8;
        for (int i = 0; i < full; i++) {
            if (a[i] != network[i]) {
                return false;
            }
        }
        int rest = prefixBits % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xff << (8 - rest)) & 0xff;
        return (a[full] & mask) == (network[full] & mask);
    }

    // ::ffff:a.b.c.d, as a dual-stack listener reports IPv4 peers.
    private static byte[] ipv4Mapped(byte[] a) {
        for (int i = 0; i < 10; i++) {
            if (a[i] != 0) {
                return null;
            }
        }
        if (a[10] != (byte) 0xff || a[11] != (byte) 0xff) {
            return null;
        }
        return new byte[] {a[12], a[13], a[14], a[15]};
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AddressBlock b && b.prefixBits == prefixBits && Arrays.equals(b.network, network);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(network) + prefixBits;
    }

    @Override
    public String toString() {
        try {
            return InetAddress.getByAddress(network).getHostAddress() + "/" + prefixBits;
        }
        catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
