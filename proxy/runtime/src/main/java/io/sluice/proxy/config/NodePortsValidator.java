package io.sluice.proxy.config;

import java.util.List;
import io.sluice.config.HostPort;

/** Checks one {@code portIdentifiesNode} section. */
final class NodePortsValidator {

    private final List<String> problems;

    NodePortsValidator(List<String> problems) {
        this.problems = problems;
    }

    void validate(PortIdentifiesNodeConfig ports, String path) {
        HostPort bootstrap = ports.bootstrapAddress();
        if (bootstrap == null) {
            problems.add(path + ".bootstrapAddress: is required");
        }
        else if (bootstrap.port() == 0) {
            // Clients must be told where to connect, so an ephemeral port cannot work.
            problems.add(path + ".bootstrapAddress: the port must be between 1 and 65535");
        }
        pattern(ports, path);
        if (ports.nodeStartPort() < 1 || ports.nodeStartPort() > 65535) {
            problems.add(path + ".nodeStartPort: must be between 1 and 65535");
        }
        ranges(ports, path);
    }

    private void pattern(PortIdentifiesNodeConfig ports, String path) {
        String pattern = ports.advertisedBrokerAddressPattern();
        if (pattern == null) {
            if (ports.bootstrapAddress() != null && ports.bootstrapAddress().wildcard()) {
                problems.add(path + ".advertisedBrokerAddressPattern: is required when bootstrapAddress listens on all "
                        + "interfaces ('" + ports.bootstrapAddress() + "'), as clients cannot connect to that address");
            }
            return;
        }
        try {
            AdvertisedPattern parsed = AdvertisedPattern.parse(pattern, 0);
            if (new HostPort(parsed.host(), 1).wildcard()) {
                problems.add(path + ".advertisedBrokerAddressPattern: '" + pattern
                        + "' is a wildcard address, which clients cannot connect to");
            }
        }
        catch (IllegalArgumentException e) {
            problems.add(path + ".advertisedBrokerAddressPattern: " + e.getMessage());
        }
    }

    private void ranges(PortIdentifiesNodeConfig ports, String path) {
        List<NodeIdRange> ranges = ports.nodeIdRanges();
        boolean valid = true;
        for (int i = 0; i < ranges.size(); i++) {
            NodeIdRange range = ranges.get(i);
            String rangePath = path + ".nodeIdRanges[" + i + "]";
            if (range.start() < 0) {
                problems.add(rangePath + ".start: node ids are never negative");
                valid = false;
            }
            if (range.start() > range.end()) {
                problems.add(rangePath + ".end: must not be less than start (" + range.start() + ")");
                valid = false;
            }
            for (int j = 0; j < i; j++) {
                if (ranges.get(j).overlaps(range)) {
                    problems.add(rangePath + ": " + range + " overlaps nodeIdRanges[" + j + "] " + ranges.get(j));
                    valid = false;
                }
            }
        }
        long lastPort = ports.nodeStartPort() + ports.rangedPortCount() - 1;
        if (valid && !ranges.isEmpty() && lastPort > 65535) {
            problems.add(path + ".nodeIdRanges: the " + ports.rangedPortCount() + " node ports from nodeStartPort "
                    + ports.nodeStartPort() + " would end at " + lastPort + ", beyond 65535");
        }
    }
}
