/**
 * Flow control shared by every Netty listener (the proxy's client ports, the bridge): reading follows the peer's own
 * reading, and closing ends with the socket closed.
 */
package io.sluice.flow;
