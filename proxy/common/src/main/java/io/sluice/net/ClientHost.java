package io.sluice.net;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * What per-client limits count by: an IPv4 address as it is, an IPv6 address by its /64 prefix. One IPv6 host usually
 * holds a whole /64 and can pick any address in it, so counting per address would give it 2^64 allowances.
 */
public final class ClientHost {

    private ClientHost() {
    }

    public static InetAddress key(InetAddress address) {
        if (!(address instanceof Inet6Address)) {
            return address;
        }
        byte[] bytes = address.getAddress();
        Arrays.fill(bytes, 8, 16, (byte) 0);
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("16 bytes are always an IPv6 address", e);
        }
    }
}
