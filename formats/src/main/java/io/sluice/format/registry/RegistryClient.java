package io.sluice.format.registry;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import javax.net.ssl.SSLException;

import com.fasterxml.jackson.databind.JsonNode;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sluice.config.ConfigException;

/**
 * A Confluent-compatible Schema Registry over HTTP (Confluent, Karapace, Redpanda, Apicurio's {@code ccompat}): the
 * three reads the codecs need and the look-up of a schema under a subject (the proxy's RecordValidation), each one request, uncached (wrap it in a {@link CachingSchemaSource}). Every request is
 * bounded: {@link RegistryConfig#timeout()} from sending to the last byte, {@link RegistryConfig#maxResponseBytes()}
 * read at most, and the JSON parsed with tight limits. Failures are {@link SchemaUnavailableException}s whose messages
 * name the schema and the cause, never credentials; {@link RegistryUnreachableException} when there was no answer.
 *
 * <p>Meters: {@code sluice.bridge.registry.requests{outcome}} (ok, not_found, refused, http_error, malformed,
 * too_large, timeout, unreachable) and {@code sluice.bridge.registry.request.duration}; another user's prefix and tags
 * come from its {@link RegistryMeters}.
 */
public final class RegistryClient implements SchemaSource, AutoCloseable {

    /** The bridge's name of the request counter ({@link RegistryMeters#BRIDGE}). */
    static final String REQUESTS = "sluice.bridge.registry.requests";
    private static final String ACCEPT = "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json, application/json";

    /** What became of a request, as counted. */
    enum Outcome {
        OK, NOT_FOUND, REFUSED, HTTP_ERROR, MALFORMED, TOO_LARGE, TIMEOUT, UNREACHABLE;

        String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final RegistryConfig config;
    private final String base;
    private final ExecutorService executor;
    private final HttpClient http;
    private final SchemaResponses responses;
    private final Map<Outcome, Counter> outcomes = new EnumMap<>(Outcome.class);
    private final Timer duration;

    /**
     * @param config validated here (a bad one is a {@link ConfigException} listing every problem under
     *        {@code schemaRegistry.})
     * @param meters where the request meters go
     */
    public static RegistryClient create(RegistryConfig config, MeterRegistry meters) {
        return create(config, meters, RegistryMeters.BRIDGE);
    }

    /** As {@link #create(RegistryConfig, MeterRegistry)}, with the meters named and tagged for {@code owner}. */
    public static RegistryClient create(RegistryConfig config, MeterRegistry meters, RegistryMeters owner) {
        return new RegistryClient(config, meters, "schemaRegistry", owner);
    }

    RegistryClient(RegistryConfig config, MeterRegistry meters, String path) {
        this(config, meters, path, RegistryMeters.BRIDGE);
    }

    private RegistryClient(RegistryConfig config, MeterRegistry meters, String path, RegistryMeters owner) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(meters, "meters");
        java.util.List<String> problems = new java.util.ArrayList<>();
        config.validate(problems, path);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        this.config = config;
        this.base = config.baseUrl();
        this.responses = new SchemaResponses(config.maxResponseBytes());
        AtomicInteger threads = new AtomicInteger();
        this.executor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "sluice-registry-http-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        HttpClient.Builder builder = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(config.timeout())
                .executor(executor);
        if (base.regionMatches(true, 0, "https:", 0, 6)) {
            RegistryTls tls = RegistryTls.of(config.tls(), path + ".tls");
            builder.sslContext(tls.context()).sslParameters(tls.parameters());
        }
        this.http = builder.build();
        for (Outcome outcome : Outcome.values()) {
            outcomes.put(outcome, Counter.builder(owner.name("requests")).tags(owner.tags()).tag("outcome", outcome.tag())
                    .description("Requests to the schema registry, by outcome").register(meters));
        }
        this.duration = Timer.builder(owner.name("request.duration")).tags(owner.tags())
                .description("Time from sending a schema registry request to its answer or failure").register(meters);
    }

    @Override
    public RegisteredSchema byId(int id) throws SchemaUnavailableException {
        if (id < 0) {
            throw new SchemaUnavailableException("schema id " + id + " does not exist: ids are not negative", true);
        }
        String what = "schema id " + id;
        return responses.schema(get("/schemas/ids/" + id, what), id, what);
    }

    @Override
    public RegisteredSchema latest(String subject) throws SchemaUnavailableException {
        String what = "the latest version of subject '" + printable(subject) + "'";
        return responses.versionedSchema(get("/subjects/" + segment(subject) + "/versions/latest", what), what);
    }

    @Override
    public RegisteredSchema bySubjectVersion(String subject, int version) throws SchemaUnavailableException {
        String what = "version " + version + " of subject '" + printable(subject) + "'";
        if (version < 1) {
            throw new SchemaUnavailableException(what + " does not exist: versions start at 1", true);
        }
        return responses.versionedSchema(get("/subjects/" + segment(subject) + "/versions/" + version, what), what);
    }

    /**
     * {@code POST /subjects/{subject}}: the version of {@code subject} whose schema is {@code schema} (same type, text and
     * references), which the registry answers with that version's id. Not found when the subject has no such version,
     * or no versions. The schema is sent as the registry returned it ({@link #byId}), so no normalization is needed.
     */
    @Override
    public RegisteredSchema lookUp(String subject, RegisteredSchema schema) throws SchemaUnavailableException {
        String what = "schema id " + schema.id() + " under subject '" + printable(subject) + "'";
        byte[] body = responses.lookUpBody(schema);
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + "/subjects/" + segment(subject)))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        return responses.lookedUp(send(request, what), schema, what);
    }

    /** The registry this client asks, for messages: the configured URL (it never carries credentials). */
    public String url() {
        return base;
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }

    // ---- one request ----

    private JsonNode get(String path, String what) throws SchemaUnavailableException {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET(), what);
    }

    private JsonNode send(HttpRequest.Builder request, String what) throws SchemaUnavailableException {
        request.timeout(config.timeout()).header("Accept", ACCEPT);
        authorization().ifPresent(value -> request.header("Authorization", value));
        AtomicReference<LimitedBody> body = new AtomicReference<>();
        long start = System.nanoTime();
        CompletableFuture<HttpResponse<byte[]>> future = http.sendAsync(request.build(), info -> {
            LimitedBody limited = new LimitedBody(config.maxResponseBytes(), info.headers().firstValueAsLong("Content-Length").orElse(-1));
            body.set(limited);
            return limited;
        });
        try {
            HttpResponse<byte[]> response = future.get(config.timeout().toNanos(), TimeUnit.NANOSECONDS);
            return answer(response, what);
        }
        catch (TimeoutException e) {
            // The request timeout covers only the wait for the headers; this covers a body that trickles in too.
            future.cancel(true);
            LimitedBody limited = body.get();
            if (limited != null) {
                limited.cancel();
            }
            throw failure(Outcome.TIMEOUT, new RegistryUnreachableException(
                    what + ": the schema registry did not answer within " + describe(config.timeout()), null));
        }
        catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new RegistryUnreachableException(what + ": interrupted while waiting for the schema registry", e);
        }
        catch (ExecutionException e) {
            throw transportFailure(e.getCause(), what);
        }
        finally {
            duration.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        }
    }

    private JsonNode answer(HttpResponse<byte[]> response, String what) throws SchemaUnavailableException {
        int status = response.statusCode();
        byte[] bytes = response.body();
        if (status == 200) {
            try {
                JsonNode node = responses.parse(bytes);
                outcomes.get(Outcome.OK).increment();
                return node;
            }
            catch (IOException e) {
                throw failure(Outcome.MALFORMED, new SchemaUnavailableException(
                        what + ": the schema registry's answer is not valid JSON (" + SchemaResponses.shortReason(e) + ")", false, e));
            }
        }
        if (status == 401 || status == 403) {
            String why = config.auth() == null
                    ? "no credentials are configured (schemaRegistry.auth)"
                    : "check the " + config.auth().kind() + " credentials in schemaRegistry.auth";
            throw failure(Outcome.REFUSED, new SchemaUnavailableException(
                    what + ": the schema registry refused the bridge (HTTP " + status + "): " + why, false));
        }
        RegistryError error = RegistryError.of(responses, bytes);
        if (status == 404 && error.notFound()) {
            throw failure(Outcome.NOT_FOUND, new SchemaUnavailableException(
                    what + " is not in the schema registry (" + error + ")", true));
        }
        if (status == 404) {
            // A registry always says which thing it lacks; a bare 404 is a wrong base path, e.g. a missing /apis/ccompat/v7.
            throw failure(Outcome.HTTP_ERROR, new SchemaUnavailableException(
                    what + ": HTTP 404 without a registry error code from " + base
                            + "; is schemaRegistry.url the registry's API base (for Apicurio .../apis/ccompat/v7)?", false));
        }
        throw failure(Outcome.HTTP_ERROR, new SchemaUnavailableException(
                what + ": the schema registry answered HTTP " + status + (error.isEmpty() ? "" : " (" + error + ")"), false));
    }

    private SchemaUnavailableException transportFailure(Throwable cause, String what) {
        if (cause instanceof LimitedBody.TooLargeException tooLarge) {
            return failure(Outcome.TOO_LARGE, new SchemaUnavailableException(what + ": " + tooLarge.getMessage(), false, tooLarge));
        }
        if (cause instanceof HttpTimeoutException) {
            return failure(Outcome.TIMEOUT, new RegistryUnreachableException(
                    what + ": the schema registry did not answer within " + describe(config.timeout()), cause));
        }
        String reason;
        if (cause instanceof ConnectException) {
            reason = "cannot connect to the schema registry at " + base;
        }
        else if (cause instanceof SSLException) {
            reason = "TLS with the schema registry at " + base + " failed: " + SchemaResponses.shortReason(cause);
        }
        else {
            reason = "the connection to the schema registry at " + base + " failed: " + SchemaResponses.shortReason(cause);
        }
        return failure(Outcome.UNREACHABLE, new RegistryUnreachableException(what + ": " + reason, cause));
    }

    private <E extends SchemaUnavailableException> E failure(Outcome outcome, E e) {
        outcomes.get(outcome).increment();
        return e;
    }

    private java.util.Optional<String> authorization() throws SchemaUnavailableException {
        RegistryAuth auth = config.auth();
        if (auth == null) {
            return java.util.Optional.empty();
        }
        try {
            if (auth.basic() != null) {
                String pair = auth.basic().username() + ":" + auth.basic().password().resolve();
                return java.util.Optional.of("Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
            }
            return java.util.Optional.of("Bearer " + auth.bearer().token().resolve());
        }
        catch (ConfigException e) {
            // Names the file, never its content.
            throw new SchemaUnavailableException("schemaRegistry.auth: " + e.getMessage(), false);
        }
    }

    /** One path segment: a subject may hold any character, '/' included. */
    private static String segment(String subject) {
        return URLEncoder.encode(subject, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** A subject for a message: bounded, without control characters (it may come from a client's publish). */
    static String printable(String text) {
        String t = text == null ? "null" : text;
        StringBuilder out = new StringBuilder(Math.min(t.length(), 200));
        for (int i = 0; i < t.length() && out.length() < 200; i++) {
            char c = t.charAt(i);
            out.append(Character.isISOControl(c) ? '?' : c);
        }
        return t.length() > 200 ? out + "..." : out.toString();
    }

    private static String describe(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    @Override
    public String toString() {
        return "RegistryClient[" + base + "]";
    }
}
