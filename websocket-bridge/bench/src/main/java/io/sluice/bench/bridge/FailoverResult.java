package io.sluice.bench.bridge;

import java.util.Map;

/**
 * The figures of one failover run. Times in seconds are NaN when there was nothing to measure (no client on the
 * stopped node), or, for {@code allResubscribedSeconds}, when not every one of its clients subscribed again.
 *
 * @param stoppedNodeClients      clients on the stopped node at the moment it was stopped
 * @param resubscribed            of them, subscribed again (on another node) by the end
 * @param allResubscribedSeconds  from the stop until the last of them was subscribed again
 * @param resubscribeP50Seconds   per client, from the stop until it was subscribed again: median
 * @param disconnectToSubscribedP50Seconds per client, from its connection closing to subscribed again (backoff included)
 * @param reconnects              connection attempts after a close or a failed connect, all clients
 * @param clientsExact            clients whose deliveries were exactly their key's records after their first position
 * @param missingMessages         owed records never delivered, all clients
 * @param gapEvents               {@code gap} messages the clients received
 * @param clientsCaughtUp         clients that had received their key's last record when the check ran
 * @param survivorsCpuBeforeSeconds CPU (user + system) of the nodes that stayed, in the window before the stop
 * @param survivorsCpuStormSeconds  the same in the window of the same length right after it
 * @param perNodeAtStop           clients subscribed on each node right before the stop
 */
public record FailoverResult(int nodes, int clients, int endpoints, double ratePerEndpoint, String stop, String stoppedNode,
                             int stoppedNodeClients, int resubscribed, double allResubscribedSeconds,
                             double resubscribeP50Seconds, double resubscribeP99Seconds, double resubscribeMaxSeconds,
                             double disconnectToSubscribedP50Seconds, double disconnectToSubscribedP99Seconds, double disconnectToSubscribedMaxSeconds,
                             int reconnects, int connectFailures, int serverCloses,
                             long messagesProduced, long messagesDelivered, long messagesUnstamped,
                             int clientsChecked, int clientsExact, int clientsWithGaps, int clientsWithDuplicates, int clientsOutOfOrder,
                             int clientsWithUnexpected, long missingMessages, long duplicateMessages, long gapEvents, int clientsCaughtUp,
                             double windowSeconds, double survivorsCpuBeforeSeconds, double survivorsCpuStormSeconds, double stoppedNodeCpuBeforeSeconds,
                             double latencyP50BeforeMs, double latencyP99BeforeMs, double latencyP99StormMs, double latencyMaxStormMs,
                             double latencyP99AfterMs, Map<String, Integer> perNodeAtStop, int problems, String firstProblem) {

    /** Every client checked got exactly what it was owed, and none was told of a gap. */
    public boolean exact() {
        return clientsChecked == clients && clientsExact == clientsChecked && gapEvents == 0;
    }
}
