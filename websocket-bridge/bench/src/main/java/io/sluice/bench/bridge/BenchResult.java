package io.sluice.bench.bridge;

/**
 * The figures of one run, as printed in the summary and written with {@code --json}. Memory figures are -1 and CPU
 * figures NaN when the bridge's process could not be observed (an external bridge without {@code --bridge-pid}).
 *
 * @param transport             websocket or sse: what the subscribers read
 * @param connectionsSubscribed connections subscribed at the end of the run
 * @param payloadBytes          mean size of the record values produced (the --payload size for raw values)
 * @param values                what the values were, and whether subscriptions asked for field lists and deltas
 * @param deltasDelivered       of the messages delivered, how many came as JSON Patch deltas
 * @param bytesPerMessage       bytes received (WebSocket frames, or the SSE body) per message delivered
 * @param latencyStdDevMs       standard deviation of the latency, the spread the Lightstreamer seed reports
 * @param mbPerSecondOut        bytes received by the subscribers, 10^6 bytes/s: WebSocket frames (headers included), or
 *                              the SSE body (chunk framing, ids, event names and heartbeats included)
 * @param bridgeCpuSecondsPerMillion bridge CPU (user + system) over the measured window per million messages delivered
 * @param bridgeKernelCpuSecondsPerMillion the system (kernel) part of it: on loopback it includes the receivers' TCP input
 * @param rssEndBytes           bridge RSS at the end of the run (traffic included)
 * @param rssPerConnectionBytes (bridge RSS with the connections open - before) / connections
 * @param heapPerConnectionBytes (bridge heap used after a full GC with the connections open - before) / connections
 */
public record BenchResult(String transport, int connectionsRequested, int connectionsSubscribed, int connectFailures, int serverCloses,
                   int endpoints, double ratePerEndpoint, int payloadBytes, String values, double seconds,
                   long messagesProduced, long messagesDelivered, long deltasDelivered, long messagesUnstamped, double expectedMsgsPerSecondOut,
                   double msgsPerSecondOut, double mbPerSecondOut, double bytesPerMessage,
                   double latencyMeanMs, double latencyStdDevMs, double latencyP50Ms, double latencyP99Ms, double latencyMaxMs,
                   double bridgeCpuSeconds, double bridgeCores, double bridgeCpuSecondsPerMillion, double bridgeKernelCpuSecondsPerMillion,
                   long rssBeforeBytes, long rssWithConnectionsBytes, long rssEndBytes, long heapBeforeBytes, long heapWithConnectionsBytes,
                   double rssPerConnectionBytes, double heapPerConnectionBytes,
                   double publisherMaxLagMs, String loadAverageStart, String loadAverageEnd, String firstProblem) {
}
