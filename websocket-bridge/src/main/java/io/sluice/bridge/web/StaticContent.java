package io.sluice.bridge.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Files a bridge node serves over plain HTTP GET beside the WebSocket endpoint: the JavaScript client and pages that
 * use it (the demo, browser tests). They come from class-path folders, searched in order, so they ship inside the
 * jar. Only names with a known web extension are served, and no path may step out of its folder. Each file is read
 * once, at its first request, and kept (they are few and small: a client library and a few pages); a request costs no
 * file read and no copy of the file, so pipelined GETs cannot make the node read and hold a copy per request.
 */
public final class StaticContent {

    /** A file found: its bytes and the Content-Type to send them with. */
    public static final class File {
        private final byte[] bytes;
        private final String contentType;
        private final ByteBuf body;

        /** @param kept whether the file is kept for every later request (else it is made anew for each) */
        File(byte[] bytes, String contentType, boolean kept) {
            this.bytes = bytes;
            this.contentType = contentType;
            // Kept: direct, so the transport writes it as it is (a heap buffer is copied to a direct one per write),
            // and never freed, so every response can send a view of it. It lives as long as the content.
            this.body = kept ? Unpooled.unreleasableBuffer(Unpooled.directBuffer(bytes.length).writeBytes(bytes).asReadOnly()) : null;
        }

        public byte[] bytes() {
            return bytes.clone();
        }

        public String contentType() {
            return contentType;
        }

        public int length() {
            return bytes.length;
        }

        /** The bytes to send: a view of the one copy, which the caller need not release. */
        public ByteBuf body() {
            return body != null ? body.duplicate() : Unpooled.wrappedBuffer(bytes);
        }
    }

    /** Where the build puts the JavaScript client (client-js/*.js) in the jar. */
    public static final String CLIENT_JS = "io/sluice/bridge/client-js";

    /**
     * The client's modules as a page requests them: the entry point, the modules it imports from beside it, and
     * json-patch.js. Whoever serves the client serves them all (StaticContentTest checks the list is client-js/*.js).
     */
    public static final List<String> CLIENT_MODULES = List.of("/sluice-bridge.js", "/bridge-protocol.js", "/subscription.js",
            "/websocket-transport.js", "/sse-transport.js", "/sse-parser.js", "/sse-event-id.js", "/json-patch.js");

    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=utf-8",
            "js", "text/javascript; charset=utf-8",
            "mjs", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8",
            "json", "application/json",
            "svg", "image/svg+xml",
            "png", "image/png",
            "ico", "image/x-icon");

    private static final StaticContent NONE = new StaticContent(List.of(), StaticContent.class.getClassLoader(), Map.of());

    private final List<String> roots;
    private final ClassLoader loader;
    private final Map<String, Generated> generated;
    // Files found, by name; only what exists is kept, so unknown names cannot grow it.
    private final Map<String, File> files = new ConcurrentHashMap<>();

    private record Generated(String contentType, Function<String, byte[]> body) {
    }

    private StaticContent(List<String> roots, ClassLoader loader, Map<String, Generated> generated) {
        this.roots = List.copyOf(roots);
        this.loader = loader;
        this.generated = Map.copyOf(generated);
    }

    /** Serves nothing: every GET is answered 404. */
    public static StaticContent none() {
        return NONE;
    }

    /**
     * @param roots class-path folders such as {@code io/sluice/bridge/client-js}, searched in order;
     *              {@code /} is {@code index.html}
     */
    public static StaticContent fromClasspath(String... roots) {
        return new StaticContent(List.of(roots).stream().map(r -> r.endsWith("/") ? r : r + "/").toList(),
                Thread.currentThread().getContextClassLoader() != null ? Thread.currentThread().getContextClassLoader()
                        : StaticContent.class.getClassLoader(), Map.of());
    }

    /** This content plus one path whose body is made anew for every request (the demo's token, for example). */
    public StaticContent withGenerated(String path, String contentType, Supplier<byte[]> body) {
        Map<String, Generated> more = new HashMap<>(generated);
        more.put(path, new Generated(contentType, host -> body.get()));
        return new StaticContent(roots, loader, more);
    }

    /**
     * This content plus one path whose body is made for each request from its Host header (null when the request has
     * none): the AsyncAPI document names the server it was fetched from.
     */
    public StaticContent withGeneratedForHost(String path, String contentType, Function<String, byte[]> body) {
        Map<String, Generated> more = new HashMap<>(generated);
        more.put(path, new Generated(contentType, body));
        return new StaticContent(roots, loader, more);
    }

    public boolean isEmpty() {
        return roots.isEmpty() && generated.isEmpty();
    }

    /** The file for a request path (query already removed), if there is one and it may be served. */
    public Optional<File> find(String path) {
        return find(path, null);
    }

    /** The same, for a request with this Host header (null if none), which generated paths may use. */
    public Optional<File> find(String path, String host) {
        Generated made = generated.get(path);
        if (made != null) {
            byte[] body = made.body().apply(host);
            return body == null ? Optional.empty() : Optional.of(new File(body, made.contentType(), false));
        }
        String name = path.equals("/") ? "index.html" : path.substring(1);
        if (name.isEmpty() || name.contains("..") || name.contains("//") || name.contains("\\") || name.startsWith("/")) {
            return Optional.empty();
        }
        int dot = name.lastIndexOf('.');
        String type = dot < 0 ? null : TYPES.get(name.substring(dot + 1).toLowerCase(Locale.ROOT));
        if (type == null) {
            return Optional.empty();
        }
        File known = files.get(name);
        if (known != null) {
            return Optional.of(known);
        }
        for (String root : roots) {
            URL url = loader.getResource(root + name);
            if (url != null) {
                try (InputStream in = url.openStream()) {
                    File file = new File(in.readAllBytes(), type, true);
                    File first = files.putIfAbsent(name, file);
                    return Optional.of(first != null ? first : file);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read " + url, e);
                }
            }
        }
        return Optional.empty();
    }
}
