package io.sluice.bridge.server;

import java.net.InetAddress;
import java.util.List;

import io.sluice.bridge.config.AddressBlock;

/**
 * The client address in {@code X-Forwarded-For}, read only when the TCP peer is a trusted proxy. Each proxy appends
 * the address it received from, so the list is read from the right: trusted proxies are skipped, and the first
 * address that is not one is the client. Entries to its left were written by the client itself and mean nothing.
 */
final class ForwardedFor {

    // A chain of proxies longer than this is not a deployment, it is an attack on the parser.
    private static final int MAX_ENTRIES = 32;

    private ForwardedFor() {
    }

    /** @return the client, or null when the header has no usable address where one is needed */
    static InetAddress client(List<String> headerValues, List<AddressBlock> trustedProxies) {
        String[] entries = String.join(",", headerValues).split(",");
        InetAddress last = null;
        for (int i = entries.length - 1, seen = 0; i >= 0 && seen < MAX_ENTRIES; i--, seen++) {
            InetAddress address = AddressBlock.literal(stripPort(entries[i].strip()));
            if (address == null) {
                return null;
            }
            if (!ConnectionAdmission.trusted(address, trustedProxies)) {
                return address;
            }
            last = address;
        }
        // Every entry a trusted proxy: the leftmost is as close to the client as the header gets.
        return last;
    }

    // Some proxies write "1.2.3.4:5678" or "[::1]:5678".
    private static String stripPort(String entry) {
        if (entry.startsWith("[")) {
            int end = entry.indexOf(']');
            return end < 0 ? entry : entry.substring(0, end + 1);
        }
        int colon = entry.indexOf(':');
        return colon > 0 && colon == entry.lastIndexOf(':') ? entry.substring(0, colon) : entry;
    }
}
