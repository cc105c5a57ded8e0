package io.sluice.bridge.session;

/**
 * How much the connection reads from its client, which changes as the client authenticates: until it has sent a
 * {@code connect}, only messages big enough for one are read (docs/bridge-protocol.md#connection). Event loop only.
 */
public interface Inbound {

    /**
     * A {@code connect} is being validated. Called while its message is being delivered, so between two frames:
     * messages up to the normal size are read from now on, but nothing more is read from the socket until
     * {@link #connected()}; a connect that fails closes the connection.
     */
    void connecting();

    /** The {@code connect} was accepted: read again. */
    void connected();

}
