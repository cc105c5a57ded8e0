package io.sluice.filter.clients;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.sluice.testkit.fixtures.PythonClients;

/**
 * librdkafka (confluent-kafka from PyPI) as the filters' tests use it: each call runs
 * {@code src/test/python/librdkafka_client.py} once, as a separate process, and returns its JSON result. Immutable:
 * {@link #with} and {@link #token} return a changed copy.
 */
public final class Librdkafka {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String bootstrap;
    private final String token;
    private final List<String> settings;

    private Librdkafka(String bootstrap, String token, List<String> settings) {
        this.bootstrap = bootstrap;
        this.token = token;
        this.settings = settings;
    }

    /** A client of {@code bootstrap} (the proxy's, or the broker's), without authentication. */
    public static Librdkafka of(String bootstrap) {
        return new Librdkafka(bootstrap, null, List.of());
    }

    /** Authenticating with SASL/OAUTHBEARER, {@code token} coming from confluent-kafka's {@code oauth_cb}. */
    public Librdkafka token(String token) {
        return new Librdkafka(bootstrap, token, settings);
    }

    /** With a librdkafka setting ({@code compression.type}, {@code fetch.max.bytes}, ...). */
    public Librdkafka with(String name, Object value) {
        List<String> more = new ArrayList<>(settings);
        more.add("--set");
        more.add(name + "=" + value);
        return new Librdkafka(bootstrap, token, List.copyOf(more));
    }

    /** {@code topics}: every listed topic's name; {@code asked}: each of {@code topics} asked by name, its error or null. */
    public JsonNode metadata(String... topics) {
        List<String> args = new ArrayList<>();
        for (String topic : topics) {
            args.add("--topic");
            args.add(topic);
        }
        return run("metadata", args);
    }

    /** Produces {@code records} (key, value; either may be null) batched as librdkafka batches them. */
    public JsonNode produce(String topic, List<Map.Entry<String, String>> records) {
        List<List<String>> pairs = records.stream().map(r -> java.util.Arrays.asList(r.getKey(), r.getValue())).toList();
        return run("produce", List.of("--topic", topic, "--records", json(pairs)));
    }

    /**
     * Creates topics with AdminClient.create_topics: {@code results} maps each name to its {@code error} (name or null),
     * {@code message} (the error's text) and {@code printed} (the exception as an application prints it).
     *
     * @param topics each [name, partitions, replication factor, configs (a map, or null)]
     */
    public JsonNode createTopics(List<List<Object>> topics) {
        return run("create-topics", List.of("--topics", json(topics)));
    }

    /**
     * Subscribes to {@code topic} in {@code group} from the earliest offset and consumes until {@code expect} records
     * arrived and the fetcher reported the end of every assigned partition at {@code untilOffset} or later
     * ({@code endOfPartition}), or 60 s passed; then commits ({@code committed}). librdkafka's {@code positions} move
     * only with delivered records, so records removed by the proxy show in {@code endOfPartition}.
     */
    public JsonNode consume(String topic, String group, int expect, long untilOffset) {
        return run("consume", List.of("--topic", topic, "--group", group, "--expect", String.valueOf(expect), "--until-offset",
                String.valueOf(untilOffset), "--timeout", "60"));
    }

    /**
     * As {@link #consume}, reporting in {@code records} only {@code count}, {@code distinctOffsets} and {@code bytes} (of
     * the values): for many or large records.
     */
    public JsonNode consumeCounting(String topic, String group, int expect, long untilOffset) {
        return run("consume", List.of("--topic", topic, "--group", group, "--expect", String.valueOf(expect), "--until-offset",
                String.valueOf(untilOffset), "--timeout", "60", "--count-only"));
    }

    private JsonNode run(String action, List<String> actionArgs) {
        List<String> args = new ArrayList<>(List.of(action, "--bootstrap", bootstrap));
        args.addAll(settings);
        args.addAll(actionArgs);
        Map<String, String> env = token == null ? Map.of() : Map.of("SLUICE_OAUTH_TOKEN", token);
        return PythonClients.run("librdkafka_client.py", TIMEOUT, env, args.toArray(String[]::new)).ok();
    }

    /** The values of {@code field} in the elements of the array {@code array} of a result, nulls included. */
    public static List<String> each(JsonNode result, String array, String field) {
        return StreamSupport.stream(result.get(array).spliterator(), false)
                .map(n -> n.get(field).isNull() ? null : n.get(field).asText()).toList();
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        }
        catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
