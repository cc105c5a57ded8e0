package io.sluice.bench.quotas;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.sluice.testkit.PythonEnvironment;

/**
 * One tenant's librdkafka consumer (confluent-kafka, {@code librdkafka_tenant.py}) in a Python process of its own:
 * started before the tenant produces, told how many records were acknowledged when it is done, and read for its
 * result (records, losses, end-to-end latency, throttle reports). The token goes in the environment, not the command line.
 */
final class TenantConsumer implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final Process process;
    private final List<String> output = new ArrayList<>();
    private final Thread pump;
    private final String name;
    private final Duration drain;

    private TenantConsumer(Process process, String name, Duration drain) {
        this.process = process;
        this.name = name;
        this.drain = drain;
        this.pump = PythonEnvironment.pump(process.getInputStream(), name, output);
    }

    /** Starts the consumer and waits until it is connected and authenticated. */
    static TenantConsumer start(PythonEnvironment.Ready python, Path script, String bootstrap, String topic, String group, String name,
                                String token, Duration drain) throws IOException, InterruptedException {
        ProcessBuilder builder = python.command(script, List.of("--bootstrap", bootstrap, "--topic", topic, "--group", group, "--name", name,
                "--drain-seconds", String.valueOf(drain.toSeconds())));
        builder.environment().put("SLUICE_OAUTH_TOKEN", token);
        TenantConsumer consumer = new TenantConsumer(builder.start(), name, drain);
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (!PythonEnvironment.snapshot(consumer.output).contains("ready")) {
            if (!consumer.process.isAlive() || System.nanoTime() > deadline) {
                consumer.close();
                throw new IOException(name + "'s librdkafka consumer did not get ready: " + String.join("\n", PythonEnvironment.snapshot(consumer.output)));
            }
            Thread.sleep(50);
        }
        return consumer;
    }

    /** Tells the consumer how many records were acknowledged and waits for its result. */
    JsonNode finish(long acked) throws IOException, InterruptedException {
        OutputStream stdin = process.getOutputStream();
        stdin.write((acked + "\n").getBytes(StandardCharsets.UTF_8));
        stdin.flush();
        if (!process.waitFor(drain.toSeconds() + 30, TimeUnit.SECONDS)) {
            close();
            throw new IOException(name + "'s consumer did not finish");
        }
        pump.join(10_000);
        List<String> lines = PythonEnvironment.snapshot(output);
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (lines.get(i).startsWith(PythonEnvironment.RESULT_PREFIX)) {
                return JSON.readTree(lines.get(i).substring(PythonEnvironment.RESULT_PREFIX.length()));
            }
        }
        throw new IOException(name + "'s consumer exited " + process.exitValue() + " without a result:\n" + String.join("\n", lines));
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
