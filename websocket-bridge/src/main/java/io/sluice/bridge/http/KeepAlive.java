package io.sluice.bridge.http;

/**
 * The idle deadline of a connection that stays HTTP (it never upgrades): it is closed after
 * {@code connections.handshakeTimeout} without a request being answered, but never while one is being answered (a
 * publish waiting for Kafka's acks, a token being validated).
 */
public interface KeepAlive {

    /** A request is being answered: no deadline until {@link #idle()}. */
    void busy();

    /** Every request has been answered: the connection is closed if nothing more is asked within the deadline. */
    void idle();

    /**
     * A request's token was valid. HTTP/2 takes the connection out of the handshake pool here; an HTTP/1.1 connection
     * that only publishes keeps its slot, its deadline being its idle timeout.
     */
    default void authenticated() {
    }
}
