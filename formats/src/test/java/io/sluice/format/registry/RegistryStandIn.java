package io.sluice.format.registry;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import javax.net.ssl.SSLContext;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;

import io.sluice.testkit.HttpStandIn;

/**
 * An in-process stand-in for a Confluent-compatible Schema Registry, speaking the real REST API for what serializers
 * and the bridge use: register ({@code POST /subjects/{s}/versions}, the same schema gets the same id), look up
 * ({@code POST /subjects/{s}}), {@code GET /schemas/ids/{id}} (query parameters such as {@code ?subject=} ignored),
 * {@code /schemas/ids/{id}/versions}, {@code /schemas/types}, {@code /subjects}, {@code /subjects/{s}/versions},
 * {@code /subjects/{s}/versions/{v|latest}} (and its {@code /schema}), {@code GET/PUT /config} and
 * {@code /config/{s}}, {@code GET /mode}. Errors have the registry's shape, {@code {"error_code":40403,"message":...}}.
 *
 * <p>What it does not do: compatibility checking (every schema is accepted; {@code /config} is stored and echoed),
 * schema validation or normalization (schemas are stored and returned exactly as given: "the same schema" means the
 * same type, text and references; a Protobuf schema registered by Python's {@code ProtobufSerializer} as a base64
 * FileDescriptorProto comes back as that base64, as Apicurio does), deletion, contexts, modes other than READWRITE.
 *
 * <p>For hostile tests it can {@link #misbehave misbehave} on every request until told to {@link #behave()}, require
 * credentials, and be stopped and restarted on the same port with its schemas kept ({@link HttpStandIn}, the server half,
 * with the request counts per route: {@code schemas.ids}, {@code subjects.versions.get}, {@code register}, {@code lookup}, ...). Usable from any module's tests
 * (the formats module's test-jar) and, through {@link #main}, from other processes.
 */
public final class RegistryStandIn extends HttpStandIn {

    /** What the stand-in does instead of answering properly. */
    public sealed interface Misbehaviour {
        /** Answers properly, this much later. */
        record Delay(Duration delay) implements Misbehaviour {
        }

        /** Sends the headers at once, then the body one byte per {@code interval}. */
        record Trickle(Duration interval) implements Misbehaviour {
        }

        /** 200 with a body of this many bytes, {@code {"schema":"AAA...A"}} (valid JSON: only its size is wrong). */
        record HugeBody(long bytes, boolean declareLength) implements Misbehaviour {
        }

        /** 200 with a body that is not JSON. */
        record Malformed(String body) implements Misbehaviour {
        }

        /** This status with a registry error body. */
        record Status(int status, int errorCode) implements Misbehaviour {
        }

        /** Starts an answer and closes the connection in its middle. */
        record CloseConnection() implements Misbehaviour {
        }

        static Misbehaviour delay(Duration delay) {
            return new Delay(delay);
        }

        static Misbehaviour trickle(Duration interval) {
            return new Trickle(interval);
        }

        static Misbehaviour hugeBody(long bytes, boolean declareLength) {
            return new HugeBody(bytes, declareLength);
        }

        static Misbehaviour malformed(String body) {
            return new Malformed(body);
        }

        static Misbehaviour status(int status, int errorCode) {
            return new Status(status, errorCode);
        }

        static Misbehaviour closeConnection() {
            return new CloseConnection();
        }
    }

    private record Stored(String type, String schema, List<JsonNode> references) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
    private static final int MAX_REQUEST_BYTES = 16 * 1024 * 1024;

    private final String basePath;
    private final Map<Integer, Stored> byId = new ConcurrentHashMap<>();
    private final Map<Stored, Integer> ids = new ConcurrentHashMap<>();
    private final Map<String, List<Integer>> subjects = new ConcurrentHashMap<>();
    private final Map<String, String> subjectCompatibility = new ConcurrentHashMap<>();
    private final AtomicInteger nextId = new AtomicInteger(1);
    private final List<String> authorizations = new CopyOnWriteArrayList<>();
    private final AtomicLong bodyBytesSent = new AtomicLong();
    private final AtomicInteger hugeBodiesCompleted = new AtomicInteger();
    private volatile String compatibility = "BACKWARD";
    private volatile String requiredAuthorization;
    private volatile Misbehaviour misbehaviour;

    private RegistryStandIn(SSLContext tls, String basePath) {
        super("registry-stand-in", tls);
        this.basePath = basePath;
    }

    /** Plain http on 127.0.0.1, any free port, the API at the root. */
    public static RegistryStandIn start() throws IOException {
        return start(null, "");
    }

    /** https with this server context. */
    public static RegistryStandIn startHttps(SSLContext serverContext) throws IOException {
        return start(serverContext, "");
    }

    /**
     * @param basePath where the API sits, e.g. {@code /apis/ccompat/v7} as in Apicurio; anything else answers a bare
     *        404 as a web server would
     */
    public static RegistryStandIn start(SSLContext serverContext, String basePath) throws IOException {
        RegistryStandIn standIn = new RegistryStandIn(serverContext, basePath);
        standIn.listen(0);
        return standIn;
    }

    /** The registry's base URL, what {@code schemaRegistry.url} would be. */
    @Override
    public String url() {
        return super.url() + basePath;
    }

    /** Registers a schema as a serializer would; returns its id. */
    public int register(String subject, SchemaType type, String schema, List<SchemaReference> references) {
        List<JsonNode> refs = new ArrayList<>();
        for (SchemaReference r : references) {
            refs.add(JSON.createObjectNode().put("name", r.name()).put("subject", r.subject()).put("version", r.version()));
        }
        return register(subject, new Stored(type.name(), schema, List.copyOf(refs)));
    }

    /** Registers an Avro schema; returns its id. */
    public int register(String subject, String avroSchema) {
        return register(subject, SchemaType.AVRO, avroSchema, List.of());
    }

    /** Requests with any other Authorization header get 401. */
    public void requireBasic(String username, String password) {
        requiredAuthorization = "Basic " + java.util.Base64.getEncoder()
                .encodeToString((username + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    public void requireBearer(String token) {
        requiredAuthorization = "Bearer " + token;
    }

    /** The Authorization headers received (null where there was none), oldest first. */
    public List<String> authorizations() {
        return Collections.unmodifiableList(new ArrayList<>(authorizations));
    }

    /** From now on, every request gets this instead of its answer. */
    public void misbehave(Misbehaviour misbehaviour) {
        this.misbehaviour = misbehaviour;
    }

    public void behave() {
        this.misbehaviour = null;
    }

    /** Body bytes written by {@link Misbehaviour.HugeBody} and {@link Misbehaviour.Trickle} answers. */
    public long misbehavingBodyBytesSent() {
        return bodyBytesSent.get();
    }

    /** Huge bodies written to the end: a client that cuts off reading prevents that. */
    public int hugeBodiesCompleted() {
        return hugeBodiesCompleted.get();
    }

    /** Runs a stand-in until killed, printing its URL: for tests in other languages. Argument: the port (0: any). */
    public static void main(String[] args) throws Exception {
        RegistryStandIn standIn = new RegistryStandIn(null, "");
        standIn.listen(args.length > 0 ? Integer.parseInt(args[0]) : 0);
        System.out.println(standIn.url());
        System.out.flush();
        Thread.currentThread().join();
    }

    // ---- HTTP ----

    @Override
    protected void handle(HttpExchange exchange) throws IOException {
        authorizations.add(exchange.getRequestHeaders().getFirst("Authorization"));
        Misbehaviour m = misbehaviour;
        if (m != null && misbehaved(exchange, m)) {
            return;
        }
        Reply reply;
        String required = requiredAuthorization;
        if (required != null && !required.equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
            reply = Reply.error(401, 40101, "Unauthorized");
        }
        else {
            try {
                reply = route(exchange);
            }
            catch (IOException | RuntimeException e) {
                reply = Reply.error(500, 50001, "Error in the backend data store: " + e);
            }
        }
        send(exchange, reply.status, JSON.writeValueAsBytes(reply.body));
    }

    private static void send(HttpExchange exchange, int status, byte[] body) throws IOException {
        send(exchange, status, CONTENT_TYPE, body);
    }

    /** @return true when the request was answered (or not) the misbehaving way */
    private boolean misbehaved(HttpExchange exchange, Misbehaviour m) throws IOException {
        exchange.getRequestBody().readAllBytes();
        if (m instanceof Misbehaviour.Delay delay) {
            pause(delay.delay());
            return false;
        }
        if (m instanceof Misbehaviour.Status status) {
            byte[] body = JSON.writeValueAsBytes(JSON.createObjectNode().put("error_code", status.errorCode())
                    .put("message", "stand-in told to answer " + status.status()));
            send(exchange, status.status(), body);
            return true;
        }
        if (m instanceof Misbehaviour.Malformed malformed) {
            send(exchange, 200, malformed.body().getBytes(StandardCharsets.UTF_8));
            return true;
        }
        if (m instanceof Misbehaviour.CloseConnection) {
            exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
            exchange.sendResponseHeaders(200, 1000);
            OutputStream out = exchange.getResponseBody();
            out.write("{\"schema\":".getBytes(StandardCharsets.UTF_8));
            out.flush();
            // Closing short of the declared length makes the server drop the connection.
            return true;
        }
        if (m instanceof Misbehaviour.Trickle trickle) {
            exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
            byte[] body = "{\"schema\":\"\\\"string\\\"\"}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            OutputStream out = exchange.getResponseBody();
            try {
                for (byte b : body) {
                    out.write(b);
                    out.flush();
                    bodyBytesSent.incrementAndGet();
                    pause(trickle.interval());
                }
                out.close();
            }
            catch (IOException e) {
                // The client gave up.
            }
            return true;
        }
        if (m instanceof Misbehaviour.HugeBody huge) {
            hugeBody(exchange, huge);
            return true;
        }
        return false;
    }

    private void hugeBody(HttpExchange exchange, Misbehaviour.HugeBody huge) throws IOException {
        byte[] head = "{\"schema\":\"".getBytes(StandardCharsets.UTF_8);
        byte[] tail = "\"}".getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
        exchange.sendResponseHeaders(200, huge.declareLength() ? huge.bytes() : 0);
        byte[] chunk = new byte[64 * 1024];
        Arrays.fill(chunk, (byte) 'A');
        OutputStream out = exchange.getResponseBody();
        try {
            out.write(head);
            long left = huge.bytes() - head.length - tail.length;
            while (left > 0) {
                int n = (int) Math.min(chunk.length, left);
                out.write(chunk, 0, n);
                bodyBytesSent.addAndGet(n);
                left -= n;
            }
            out.write(tail);
            out.close();
            hugeBodiesCompleted.incrementAndGet();
        }
        catch (IOException e) {
            // The client stopped reading and closed the connection: what a bounded client does.
        }
    }

    private Reply route(HttpExchange exchange) throws IOException {
        String rawPath = exchange.getRequestURI().getRawPath();
        if (!rawPath.startsWith(basePath + "/")) {
            count("unknown");
            return new Reply(404, JSON.createObjectNode().put("message", "HTTP 404 Not Found"));
        }
        List<String> p = new ArrayList<>();
        for (String segment : rawPath.substring(basePath.length() + 1).split("/", -1)) {
            p.add(URLDecoder.decode(segment, StandardCharsets.UTF_8));
        }
        while (!p.isEmpty() && p.get(p.size() - 1).isEmpty()) {
            p.remove(p.size() - 1);
        }
        String method = exchange.getRequestMethod();
        byte[] raw = exchange.getRequestBody().readNBytes(MAX_REQUEST_BYTES);
        JsonNode body = raw.length == 0 ? JSON.createObjectNode() : JSON.readTree(raw);
        boolean get = method.equals("GET");
        int n = p.size();
        String first = n > 0 ? p.get(0) : "";

        if (first.equals("schemas") && n >= 2 && p.get(1).equals("types") && get) {
            count("schemas.types");
            return Reply.ok(JSON.createArrayNode().add("JSON").add("PROTOBUF").add("AVRO"));
        }
        if (first.equals("schemas") && n >= 3 && p.get(1).equals("ids") && get) {
            return schemaById(p);
        }
        if (first.equals("subjects") && n == 1 && get) {
            count("subjects");
            ArrayNode out = JSON.createArrayNode();
            new TreeMap<>(subjects).keySet().forEach(out::add);
            return Reply.ok(out);
        }
        if (first.equals("subjects") && n >= 2) {
            return subject(p, method, body);
        }
        if (first.equals("config")) {
            return config(n == 1 ? null : p.get(1), get, body);
        }
        if (first.equals("mode") && get) {
            count("mode");
            return Reply.ok(JSON.createObjectNode().put("mode", "READWRITE"));
        }
        count("unknown");
        return Reply.error(404, 404, "HTTP 404 Not Found");
    }

    private Reply schemaById(List<String> p) {
        count("schemas.ids");
        Integer id = integer(p.get(2));
        Stored stored = id == null ? null : byId.get(id);
        if (stored == null) {
            return Reply.error(404, 40403, "Schema " + p.get(2) + " not found");
        }
        if (p.size() == 3) {
            ObjectNode out = JSON.createObjectNode();
            describe(out, stored);
            return Reply.ok(out);
        }
        if (p.size() == 4 && p.get(3).equals("versions")) {
            ArrayNode out = JSON.createArrayNode();
            subjectVersions(id).forEach((subject, version) -> out.add(JSON.createObjectNode().put("subject", subject).put("version", version)));
            return Reply.ok(out);
        }
        if (p.size() == 4 && p.get(3).equals("subjects")) {
            ArrayNode out = JSON.createArrayNode();
            subjectVersions(id).keySet().forEach(out::add);
            return Reply.ok(out);
        }
        if (p.size() == 4 && p.get(3).equals("schema")) {
            return new Reply(200, JSON.getNodeFactory().textNode(stored.schema()));
        }
        return Reply.error(404, 404, "HTTP 404 Not Found");
    }

    private Map<String, Integer> subjectVersions(int id) {
        Map<String, Integer> out = new TreeMap<>();
        subjects.forEach((subject, versions) -> {
            synchronized (versions) {
                int v = versions.indexOf(id);
                if (v >= 0) {
                    out.put(subject, v + 1);
                }
            }
        });
        return out;
    }

    private Reply subject(List<String> p, String method, JsonNode body) {
        String subject = p.get(1);
        int n = p.size();
        if (n == 2 && method.equals("POST")) {
            count("lookup");
            List<Integer> versions = subjects.get(subject);
            if (versions == null) {
                return Reply.error(404, 40401, "Subject '" + subject + "' not found.");
            }
            Stored wanted = stored(body);
            if (wanted == null) {
                return Reply.error(422, 42201, "Invalid schema");
            }
            Integer id = ids.get(wanted);
            int version;
            synchronized (versions) {
                version = id == null ? -1 : versions.indexOf(id);
            }
            if (version < 0) {
                return Reply.error(404, 40403, "Schema not found");
            }
            return Reply.ok(versionObject(subject, version + 1, id));
        }
        if (n == 3 && p.get(2).equals("versions") && method.equals("POST")) {
            count("register");
            Stored wanted = stored(body);
            if (wanted == null) {
                return Reply.error(422, 42201, "Invalid schema");
            }
            for (JsonNode ref : wanted.references()) {
                if (version(ref.path("subject").asText(), String.valueOf(ref.path("version").asInt())) == null) {
                    return Reply.error(422, 42201, "Invalid schema: reference " + ref + " not found");
                }
            }
            return Reply.ok(JSON.createObjectNode().put("id", register(subject, wanted)));
        }
        if (n == 3 && p.get(2).equals("versions") && method.equals("GET")) {
            count("subjects.versions.list");
            List<Integer> versions = subjects.get(subject);
            if (versions == null) {
                return Reply.error(404, 40401, "Subject '" + subject + "' not found.");
            }
            ArrayNode out = JSON.createArrayNode();
            synchronized (versions) {
                for (int i = 1; i <= versions.size(); i++) {
                    out.add(i);
                }
            }
            return Reply.ok(out);
        }
        if ((n == 4 || n == 5) && p.get(2).equals("versions") && method.equals("GET")) {
            count("subjects.versions.get");
            if (!subjects.containsKey(subject)) {
                return Reply.error(404, 40401, "Subject '" + subject + "' not found.");
            }
            if (!p.get(3).equals("latest") && integer(p.get(3)) == null) {
                return Reply.error(422, 42202, "The specified version '" + p.get(3) + "' is not a valid version id. "
                        + "Allowed values are between [1, 2^31-1] and the string \"latest\"");
            }
            int[] found = version(subject, p.get(3));
            if (found == null) {
                return Reply.error(404, 40402, "Version " + p.get(3) + " not found.");
            }
            if (n == 5 && p.get(4).equals("schema")) {
                return new Reply(200, JSON.getNodeFactory().textNode(byId.get(found[1]).schema()));
            }
            return Reply.ok(versionObject(subject, found[0], found[1]));
        }
        count("unknown");
        return Reply.error(405, 405, "HTTP 405 Method Not Allowed");
    }

    /** {version, id} of a subject's version ("latest" and "-1" included), or null. */
    private int[] version(String subject, String version) {
        List<Integer> versions = subjects.get(subject);
        if (versions == null) {
            return null;
        }
        synchronized (versions) {
            if (versions.isEmpty()) {
                return null;
            }
            int v = version.equals("latest") || version.equals("-1") ? versions.size() : integer(version) == null ? 0 : integer(version);
            return v < 1 || v > versions.size() ? null : new int[]{ v, versions.get(v - 1) };
        }
    }

    private Reply config(String subject, boolean get, JsonNode body) {
        count("config");
        if (get) {
            String level = subject == null ? compatibility : subjectCompatibility.get(subject);
            if (level == null) {
                return Reply.error(404, 40408, "Subject '" + subject + "' does not have subject-level compatibility configured");
            }
            return Reply.ok(JSON.createObjectNode().put("compatibilityLevel", level));
        }
        String level = body.path("compatibility").asText("");
        if (level.isEmpty()) {
            return Reply.error(422, 42203, "Invalid compatibility level");
        }
        if (subject == null) {
            compatibility = level;
        }
        else {
            subjectCompatibility.put(subject, level);
        }
        return Reply.ok(JSON.createObjectNode().put("compatibility", level));
    }

    private ObjectNode versionObject(String subject, int version, int id) {
        ObjectNode out = JSON.createObjectNode().put("subject", subject).put("version", version).put("id", id);
        describe(out, byId.get(id));
        return out;
    }

    /** As Confluent answers: schemaType only when not AVRO, references only when there are some. */
    private static void describe(ObjectNode out, Stored stored) {
        if (!stored.type().equals("AVRO")) {
            out.put("schemaType", stored.type());
        }
        if (!stored.references().isEmpty()) {
            ArrayNode refs = out.putArray("references");
            stored.references().forEach(refs::add);
        }
        out.put("schema", stored.schema());
    }

    private static Stored stored(JsonNode body) {
        JsonNode schema = body.get("schema");
        if (schema == null || !schema.isTextual()) {
            return null;
        }
        String type = body.path("schemaType").asText("AVRO");
        if (!List.of("AVRO", "PROTOBUF", "JSON").contains(type)) {
            return null;
        }
        List<JsonNode> refs = new ArrayList<>();
        for (JsonNode ref : body.path("references")) {
            refs.add(JSON.createObjectNode().put("name", ref.path("name").asText()).put("subject", ref.path("subject").asText())
                    .put("version", ref.path("version").asInt()));
        }
        return new Stored(type, schema.textValue(), List.copyOf(refs));
    }

    private int register(String subject, Stored stored) {
        int id = ids.computeIfAbsent(stored, s -> {
            int newId = nextId.getAndIncrement();
            byId.put(newId, s);
            return newId;
        });
        List<Integer> versions = subjects.computeIfAbsent(subject, s -> new ArrayList<>());
        synchronized (versions) {
            if (!versions.contains(id)) {
                versions.add(id);
            }
        }
        return id;
    }

    private static Integer integer(String text) {
        try {
            return Integer.valueOf(text);
        }
        catch (NumberFormatException e) {
            return null;
        }
    }

    private record Reply(int status, JsonNode body) {
        static Reply ok(JsonNode body) {
            return new Reply(200, body);
        }

        static Reply error(int status, int code, String message) {
            return new Reply(status, JSON.createObjectNode().put("error_code", code).put("message", message));
        }
    }
}
