package io.sluice.proxy.cluster;

import java.util.concurrent.CompletionStage;

import io.sluice.config.HostPort;

/**
 * Maps a broker's real address to the address clients must use instead: the gateway port that stands for
 * that node. Learning the real address and binding the port (if not bound yet) happen here, which is why
 * the answer is asynchronous.
 */
public interface NodeAdvertiser {

    CompletionStage<HostPort> advertise(int nodeId, String brokerHost, int brokerPort);
}
