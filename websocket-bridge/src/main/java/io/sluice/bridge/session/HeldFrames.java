package io.sluice.bridge.session;

import java.util.ArrayDeque;
import java.util.function.Consumer;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.sluice.flow.WritabilityGate;

/**
 * A connection's requests held while a subscribe waits for the node's reader to start. In: the subscribe that has to
 * wait and every frame after it; out: the same frames, in order, to the session's handler once the reader has started
 * or the node's startup wait is over. Socket reads pause meanwhile, so it holds at most what the socket had already
 * delivered: the rest of one read, each frame within the message limit.
 *
 * <p>Event loop only, like its session.
 */
final class HeldFrames {

    private final Channel channel;
    private final ReaderStartup startup;
    private final Consumer<ByteBuf> handler;
    // Null while nothing is held.
    private ArrayDeque<ByteBuf> held;

    /** @param handler handles one frame after the wait; does not take over the reference */
    HeldFrames(Channel channel, ReaderStartup startup, Consumer<ByteBuf> handler) {
        this.channel = channel;
        this.startup = startup;
        this.handler = handler;
    }

    /** Holds (retains) the frame if frames are being held; false when it is the caller's to handle now. */
    boolean hold(ByteBuf frame) {
        if (held == null) {
            return false;
        }
        held.add(frame.retain());
        return true;
    }

    /**
     * Holds the subscribe, and every frame after it so that requests keep their order, until the reader has started
     * or the node's startup wait is over; socket reads pause meanwhile.
     */
    void holdFrom(ByteBuf subscribe) {
        held = new ArrayDeque<>();
        held.add(subscribe.retain());
        WritabilityGate.pauseReading(channel, held);
        startup.waitOver().whenComplete((ignored, error) -> channel.eventLoop().execute(this::waitOver));
    }

    private void waitOver() {
        ArrayDeque<ByteBuf> frames = held;
        if (frames == null) {
            return;
        }
        held = null;
        WritabilityGate.resumeReading(channel, frames);
        for (ByteBuf frame = frames.poll(); frame != null; frame = frames.poll()) {
            try {
                handler.accept(frame);
            }
            finally {
                frame.release();
            }
        }
    }

    /** The session ends: what is held is released, and nothing is handed on. */
    void release() {
        if (held != null) {
            held.forEach(ByteBuf::release);
            held = null;
        }
    }
}
