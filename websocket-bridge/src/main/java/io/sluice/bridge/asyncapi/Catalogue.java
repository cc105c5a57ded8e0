package io.sluice.bridge.asyncapi;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.sluice.bridge.config.BridgeConfig;
import io.sluice.format.Formats;
import io.sluice.bridge.web.StaticContent;

/**
 * Serves {@code GET /asyncapi.json} and the catalogue page ({@code /catalogue}, {@code /catalogue.js}, and the
 * JavaScript client they use) when {@code catalogue.enabled}. Requests are answered on the connection's event loop,
 * which must never wait for the registry: the document is rebuilt on a thread of its own, at start and every
 * {@link #REFRESH_SECONDS}, and each request gets the latest copy with its {@code servers} section. Until the first
 * build with the registry is done, the document describes registry schemas as not fetched yet.
 * <p>
 * The document is served before any token, so a GET must cost no more than copying its bytes: each build is rendered
 * (pretty printed, {@code servers} in place) once, on the refresher's thread, around a placeholder for the host, and a
 * request only joins the two halves with its host. Before, every GET deep-copied and pretty printed the whole
 * document, registry schemas included, on the event loop.
 */
public final class Catalogue implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Catalogue.class);
    static final long REFRESH_SECONDS = 60;
    public static final String DOCUMENT_PATH = "/asyncapi.json";
    public static final String PAGE_PATH = "/catalogue";
    private static final String RESOURCES = "io/sluice/bridge/catalogue/";
    // A Host header is the client's to choose; only a plain host[:port] is put into the document.
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?|\\[[0-9A-Fa-f:.]{2,45}\\](:[0-9]{1,5})?");

    private final BridgeConfig config;
    private final AsyncApiGenerator generator;
    private final ScheduledExecutorService refresher;
    private volatile Rendered rendered;
    // Builds rendered since start (tests: a GET renders nothing).
    private final AtomicInteger renders = new AtomicInteger();

    private Catalogue(BridgeConfig config, Formats formats) {
        this.config = config;
        this.generator = new AsyncApiGenerator(config, formats);
        this.rendered = render(generator.generate(false));
        this.refresher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-bridge-asyncapi");
            t.setDaemon(true);
            return t;
        });
        refresher.scheduleWithFixedDelay(this::refresh, 0, REFRESH_SECONDS, TimeUnit.SECONDS);
    }

    /** Starts building the document; close it to stop. */
    public static Catalogue start(BridgeConfig config, Formats formats) {
        return new Catalogue(config, formats);
    }

    /** Builds the document with the registry now (tests; the node does it on its own thread). */
    void refreshNow() {
        refresh();
    }

    private void refresh() {
        try {
            rendered = render(generator.generate(true));
        }
        catch (RuntimeException e) {
            LOG.warn("cannot build the AsyncAPI document: {}", e.toString());
        }
    }

    /** {@code content} plus the document, the page and the client they load. */
    public StaticContent serve(StaticContent content) {
        StaticContent served = content.withGeneratedForHost(DOCUMENT_PATH, "application/json", this::documentFor)
                .withGenerated(PAGE_PATH, "text/html; charset=utf-8", resource("catalogue.html"))
                .withGenerated(PAGE_PATH + ".js", "text/javascript; charset=utf-8", resource("catalogue.js"));
        StaticContent client = StaticContent.fromClasspath(StaticContent.CLIENT_JS);
        for (String file : StaticContent.CLIENT_MODULES) {
            if (content.find(file).isEmpty() && client.find(file).isPresent()) {
                byte[] bytes = client.find(file).get().bytes();
                served = served.withGenerated(file, "text/javascript; charset=utf-8", () -> bytes);
            }
        }
        return served;
    }

    /**
     * One build, rendered: the bytes before the host and after it in {@code servers}, or the whole document in
     * {@code before} when {@code catalogue.publicUrl} fixes the host ({@code after} null).
     */
    private record Rendered(byte[] before, byte[] after) {
    }

    /** The document as fetched with this Host header: its server is the URL the client reached (or publicUrl). */
    byte[] documentFor(String host) {
        Rendered r = rendered;
        if (r.after() == null) {
            return r.before();
        }
        byte[] name = (host != null && HOST.matcher(host).matches() ? host
                : config.server().listen().host() + ":" + config.server().listen().port()).getBytes(StandardCharsets.US_ASCII);
        byte[] out = Arrays.copyOf(r.before(), r.before().length + name.length + r.after().length);
        System.arraycopy(name, 0, out, r.before().length, name.length);
        System.arraycopy(r.after(), 0, out, r.before().length + name.length, r.after().length);
        return out;
    }

    int renders() {
        return renders.get();
    }

    private Rendered render(ObjectNode doc) {
        renders.incrementAndGet();
        ObjectNode server = JsonNodeFactory.instance.objectNode();
        URI publicUri = config.catalogue().publicUri();
        // Unguessable, so that no schema text can hold it; a host (HOST) needs no JSON escaping in its place.
        String placeholder = "sluice-host-" + UUID.randomUUID();
        if (publicUri != null) {
            server.put("host", publicUri.getRawAuthority()).put("protocol", publicUri.getScheme())
                    .put("pathname", publicUri.getRawPath() == null || publicUri.getRawPath().isEmpty()
                            ? config.server().path() : publicUri.getRawPath());
        }
        else {
            server.put("host", placeholder)
                    .put("protocol", config.server().scheme())
                    .put("pathname", config.server().path());
        }
        server.put("description", "The bridge's WebSocket endpoint");
        server.putArray("security").add(AsyncApiGenerator.ref("#/components/securitySchemes/" + AsyncApiGenerator.SECURITY_SCHEME));
        // servers first, after info, where readers look for it.
        ObjectNode ordered = JsonNodeFactory.instance.objectNode();
        doc.fields().forEachRemaining(f -> {
            ordered.set(f.getKey(), f.getValue());
            if (f.getKey().equals("defaultContentType")) {
                ordered.putObject("servers").set("bridge", server);
            }
        });
        byte[] bytes = AsyncApiGenerator.bytes(ordered);
        if (publicUri != null) {
            return new Rendered(bytes, null);
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        int at = text.indexOf(placeholder);
        byte[] before = text.substring(0, at).getBytes(StandardCharsets.UTF_8);
        byte[] after = text.substring(at + placeholder.length()).getBytes(StandardCharsets.UTF_8);
        return new Rendered(before, after);
    }

    private static java.util.function.Supplier<byte[]> resource(String name) {
        byte[] bytes;
        try (InputStream in = Catalogue.class.getClassLoader().getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + RESOURCES + name);
            }
            bytes = in.readAllBytes();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return () -> bytes;
    }

    @Override
    public void close() {
        refresher.shutdownNow();
    }
}
