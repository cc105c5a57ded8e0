package io.sluice.bench.relay;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * haproxy run as a child process in the foreground with a generated {@link HaproxyConfig}, so that its pid is the
 * process doing the relaying and its CPU can be read from /proc as the proxy's is. Stopped on {@link #close()}.
 */
public final class HaproxyRelay implements AutoCloseable {

    /** Debian installs haproxy in /usr/sbin, which a user's PATH often leaves out. */
    private static final List<Path> SBIN = List.of(Path.of("/usr/local/sbin"), Path.of("/usr/sbin"));
    private static final Duration START_TIMEOUT = Duration.ofSeconds(15);

    private final Process process;
    private final Path dir;

    private HaproxyRelay(Process process, Path dir) {
        this.process = process;
        this.dir = dir;
    }

    /** The haproxy executable on PATH, else in the sbin directories; empty when it is not installed. */
    public static Optional<Path> executable() {
        List<Path> dirs = new ArrayList<>();
        for (String entry : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                dirs.add(Path.of(entry));
            }
        }
        dirs.addAll(SBIN);
        return dirs.stream().map(d -> d.resolve("haproxy")).filter(Files::isExecutable).findFirst();
    }

    /** Writes the configuration to a temporary directory, starts haproxy and returns once every route's port accepts. */
    public static HaproxyRelay start(Path executable, List<HaproxyConfig.Route> routes) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("sluice-relay-");
        Path config = Files.writeString(dir.resolve("haproxy.cfg"), HaproxyConfig.render(routes), StandardCharsets.UTF_8);
        Path log = dir.resolve("haproxy.log");
        // -db: stay in the foreground, one process (no master-worker), so the child's pid is the one relaying.
        Process process = new ProcessBuilder(executable.toString(), "-db", "-f", config.toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        HaproxyRelay relay = new HaproxyRelay(process, dir);
        try {
            relay.awaitListening(routes, log);
        } catch (IOException | InterruptedException | RuntimeException e) {
            relay.close();
            throw e;
        }
        return relay;
    }

    public long pid() {
        return process.pid();
    }

    private void awaitListening(List<HaproxyConfig.Route> routes, Path log) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        for (HaproxyConfig.Route route : routes) {
            while (!accepting(route.listenPort())) {
                if (!process.isAlive()) {
                    throw new IOException("haproxy exited with code " + process.exitValue() + " before listening on " + route.listenPort()
                            + ":\n" + Files.readString(log, StandardCharsets.UTF_8));
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException("haproxy not listening on " + route.listenPort() + " within " + START_TIMEOUT + ":\n"
                            + Files.readString(log, StandardCharsets.UTF_8));
                }
                Thread.sleep(50);
            }
        }
    }

    private static boolean accepting(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // A leftover temporary directory of two small files is not worth failing a benchmark for.
        }
    }
}
