package io.sluice.transport;

import java.util.List;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.sluice.config.ConfigException;

/**
 * The socket transport of a server's event loops: {@code io_uring}, {@code epoll} (Linux native libraries shipped for
 * x86_64 and aarch64) or {@code nio} (anywhere). {@code auto} takes native epoll where it loads and NIO elsewhere; see
 * docs/performance.md for the measurement behind that default and why io_uring is a choice, not the default.
 */
public record Transport(String name, IoHandlerFactory ioHandlerFactory, Class<? extends ServerChannel> serverChannel,
                        Class<? extends SocketChannel> socketChannel) {

    public static final String AUTO = "auto";
    public static final List<String> CHOICES = List.of(AUTO, "io_uring", "epoll", "nio");

    /** The {@code auto} choice. */
    public static Transport best() {
        return select(AUTO);
    }

    /**
     * The transport named by a configuration's {@code transport} field (validated against {@link #CHOICES}).
     *
     * @throws IllegalStateException when a native transport was asked for by name and cannot load here, with the reason
     */
    public static Transport select(String choice) {
        return switch (choice) {
            case AUTO -> Epoll.isAvailable() ? epoll() : nio();
            case "io_uring" -> {
                if (!IoUring.isAvailable()) {
                    throw new IllegalStateException("io_uring is not available here: " + IoUring.unavailabilityCause());
                }
                yield new Transport("io_uring", IoUringIoHandler.newFactory(), IoUringServerSocketChannel.class, IoUringSocketChannel.class);
            }
            case "epoll" -> {
                if (!Epoll.isAvailable()) {
                    throw new IllegalStateException("epoll is not available here: " + Epoll.unavailabilityCause());
                }
                yield epoll();
            }
            case "nio" -> nio();
            default -> throw new IllegalArgumentException("unknown transport '" + choice + "': one of " + CHOICES);
        };
    }

    /**
     * {@link #select}, with a failure reported as a configuration problem of {@code field}: a transport that cannot
     * load here stops the server at start, rather than silently running on another one.
     */
    public static Transport forConfig(String choice, String field) {
        try {
            return select(choice);
        } catch (IllegalStateException | IllegalArgumentException e) {
            throw new ConfigException(field + ": " + e.getMessage(), e);
        }
    }

    /** Why {@code choice} is not a transport name, or null when it is one. */
    public static String problem(String choice) {
        return CHOICES.contains(choice) ? null : "must be one of " + String.join(", ", CHOICES) + " (was '" + choice + "')";
    }

    public EventLoopGroup newGroup(int threads, String threadPrefix) {
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(threadPrefix, true), ioHandlerFactory);
    }

    private static Transport epoll() {
        return new Transport("epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class, EpollSocketChannel.class);
    }

    private static Transport nio() {
        return new Transport("nio", NioIoHandler.newFactory(), NioServerSocketChannel.class, NioSocketChannel.class);
    }
}
