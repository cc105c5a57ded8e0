package io.sluice.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * moto in server mode ({@code moto_server}, PyPI {@code moto[server]}, pinned in {@code sluice-moto/requirements.txt}),
 * a child process on a free loopback port: an AWS API server nobody here wrote, which speaks the KMS API that the AWS
 * SDK calls (it signs nothing it checks: any access key works). Its keys live in the process and die with it.
 *
 * <p>Besides the AWS API, an operator's few calls ({@link #createKey}) so that a benchmark can prepare a KEK without
 * the AWS SDK, and {@link #served(String)}: how many requests of one KMS operation moto answered, from its own request
 * recorder, the KMS's view of what a proxy called.
 *
 * <p>Main code, not a test fixture, because {@code sluice bench encryption --kms aws} runs it as the proxy's KMS.
 */
public final class MotoServer implements AutoCloseable {

    /** Region and credentials moto accepts; any would do. */
    public static final String REGION = "eu-west-1";
    public static final String ACCESS_KEY_ID = "sluice-moto-access-key";
    public static final String SECRET_ACCESS_KEY = "sluice-moto-secret-key";

    private static final String REQUIREMENTS = "sluice-moto/requirements.txt";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final int port;
    private final Path log;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private MotoServer(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** The venv with moto, installed on first use, or why it cannot be had (no Python, no PyPI). */
    public static PythonVenv.Prepared venv() {
        try (InputStream in = MotoServer.class.getClassLoader().getResourceAsStream(REQUIREMENTS)) {
            if (in == null) {
                throw new IllegalStateException(REQUIREMENTS + " is missing from the test kit's jar");
            }
            return PythonVenv.prepare("moto", in.readAllBytes(), Map.of());
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Starts moto from that venv and waits until it answers.
     *
     * @throws IOException when it does not start or answer within a minute (its log in the message)
     */
    public static MotoServer start(PythonVenv venv) throws IOException {
        int port = FreePorts.block(1);
        Path dir = Files.createTempDirectory("sluice-moto-");
        Path log = dir.resolve("moto.log");
        ProcessBuilder builder = new ProcessBuilder(List.of(venv.bin("moto_server").toString(), "-H", "127.0.0.1", "-p", Integer.toString(port)))
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("MOTO_ENABLE_RECORDING", "True");
        builder.environment().put("MOTO_RECORDER_FILEPATH", dir.resolve("recording.jsonl").toString());
        builder.environment().put("PYTHONDONTWRITEBYTECODE", "1");
        MotoServer moto = new MotoServer(builder.start(), port, log);
        try {
            moto.awaitReady();
            moto.post("/moto-api/recorder/start-recording");
        }
        catch (IOException | RuntimeException e) {
            moto.close();
            throw e;
        }
        return moto;
    }

    /** {@code http://127.0.0.1:PORT}: the AWS SDK's {@code endpointOverride}. */
    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /**
     * Creates a symmetric encryption key, and an alias for it when {@code alias} is not null ({@code alias/...}).
     *
     * @return the key's ARN
     */
    public String createKey(String alias) throws IOException {
        JsonNode key = kms("CreateKey", JSON.createObjectNode().put("Description", "sluice test key"));
        String arn = key.path("KeyMetadata").path("Arn").asText();
        if (alias != null) {
            kms("CreateAlias", JSON.createObjectNode().put("AliasName", alias).put("TargetKeyId", arn));
        }
        return arn;
    }

    /** How many requests of this KMS operation (e.g. {@code GenerateDataKey}, {@code Decrypt}) moto has answered. */
    public long served(String operation) throws IOException {
        String target = "TrentService." + operation;
        String recording = send(HttpRequest.newBuilder(URI.create(endpoint() + "/moto-api/recorder/download-recording")).GET());
        long count = 0;
        for (String line : recording.lines().filter(l -> !l.isBlank()).toList()) {
            if (target.equals(JSON.readTree(line).path("headers").path("X-Amz-Target").asText())) {
                count++;
            }
        }
        return count;
    }

    private JsonNode kms(String operation, ObjectNode body) throws IOException {
        String answer = send(HttpRequest.newBuilder(URI.create(endpoint() + "/"))
                .header("X-Amz-Target", "TrentService." + operation)
                .header("Content-Type", "application/x-amz-json-1.1")
                // moto reads the region and account from the signature's scope; it does not check the signature.
                .header("Authorization", "AWS4-HMAC-SHA256 Credential=" + ACCESS_KEY_ID + "/20260101/" + REGION
                        + "/kms/aws4_request, SignedHeaders=host, Signature=0")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())));
        return JSON.readTree(answer);
    }

    private void post(String path) throws IOException {
        send(HttpRequest.newBuilder(URI.create(endpoint() + path)).POST(HttpRequest.BodyPublishers.noBody()));
    }

    private String send(HttpRequest.Builder request) throws IOException {
        try {
            HttpResponse<String> response = http.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 != 2) {
                throw new IOException("moto answered " + response.statusCode() + ": " + response.body());
            }
            return response.body();
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private void awaitReady() throws IOException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("moto_server exited with " + process.exitValue() + ": " + logTail());
            }
            try {
                send(HttpRequest.newBuilder(URI.create(endpoint() + "/moto-api/")).GET());
                return;
            }
            catch (IOException notYet) {
                try {
                    process.waitFor(100, TimeUnit.MILLISECONDS);
                }
                catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }
        }
        throw new IOException("moto_server did not answer on port " + port + " within " + START_TIMEOUT + ": " + logTail());
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        }
        catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** Stops moto (and anything it started), waiting for it to exit. */
    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "moto at " + endpoint();
    }
}
