package io.sluice.bridge.sse;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An SSE client for tests on {@code java.net.http}, parsing the stream line by line as the SSE specification says
 * (comments counted, {@code id}/{@code event}/{@code data} fields, a blank line dispatching). Not ours on the server
 * side, so it also checks the wire: every {@code data} is one line of JSON.
 */
final class SseClient implements AutoCloseable {

    static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Event END = new Event(null, "end-of-stream", null, null);

    record Event(String id, String event, String data, JsonNode json) {
        String type() {
            return json == null ? event : json.get("type").asText();
        }
    }

    final int status;
    final HttpResponse<InputStream> response;
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final List<String> firstLines = new ArrayList<>();
    private volatile int comments;
    private volatile String retry;

    private SseClient(HttpResponse<InputStream> response) {
        this.response = response;
        this.status = response.statusCode();
        if (status == 200) {
            Thread reader = new Thread(this::read, "sse-client");
            reader.setDaemon(true);
            reader.start();
        }
    }

    static SseClient open(int port, String query, String token, String lastEventId) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ws/sse?" + query))
                .header("Accept", "text/event-stream").GET();
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        if (lastEventId != null) {
            request.header("Last-Event-ID", lastEventId);
        }
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try {
            return new SseClient(client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream()));
        }
        catch (IOException e) {
            throw new IllegalStateException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The error body of a refused stream. */
    JsonNode error() throws IOException {
        try (InputStream in = response.body()) {
            return JSON.readTree(in.readAllBytes());
        }
    }

    private void read() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            String id = null;
            String event = null;
            String data = null;
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                synchronized (firstLines) {
                    if (firstLines.size() < 3) {
                        firstLines.add(line);
                    }
                }
                if (line.isEmpty()) {
                    if (data != null) {
                        events.add(new Event(id, event == null ? "message" : event, data, JSON.readTree(data)));
                    }
                    id = null;
                    event = null;
                    data = null;
                }
                else if (line.startsWith(":")) {
                    comments++;
                }
                else if (line.startsWith("id: ")) {
                    id = line.substring(4);
                }
                else if (line.startsWith("event: ")) {
                    event = line.substring(7);
                }
                else if (line.startsWith("retry: ")) {
                    retry = line.substring(7);
                }
                else if (line.startsWith("data: ") && data == null) {
                    data = line.substring(6);
                }
                else {
                    // A wire the bridge must not write: an event the test sees at once (as no type it expects).
                    events.add(new Event(null, (line.startsWith("data: ") ? "a second data line: " : "not an SSE line: ") + line, null, null));
                }
            }
        }
        catch (IOException e) {
            // Closed by the test or the server.
        }
        events.add(END);
    }

    List<String> firstLines() {
        synchronized (firstLines) {
            return List.copyOf(firstLines);
        }
    }

    String retry() {
        return retry;
    }

    int comments() {
        return comments;
    }

    /** The next event, which must be of this type (its JSON's type, which is also its event name unless a message). */
    Event expect(String type) {
        Event e = next();
        assertThat(e.type()).as("event %s", e.data()).isEqualTo(type);
        if (!type.equals("message")) {
            assertThat(e.event()).isEqualTo(type);
        }
        else {
            assertThat(e.event()).isEqualTo("message");
        }
        return e;
    }

    Event next() {
        try {
            Event e = events.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(e).as("an event within %s", WAIT).isNotNull();
            return e;
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The next n message, delta or gap events (replies in between skipped). */
    List<Event> positioned(int n) {
        List<Event> out = new ArrayList<>();
        while (out.size() < n) {
            Event e = next();
            assertThat(e).isNotSameAs(END);
            if (e.id() != null) {
                out.add(e);
            }
        }
        return out;
    }

    /** Whether the server ended the stream: everything up to the end, the end included. */
    List<Event> untilEnd() {
        List<Event> out = new ArrayList<>();
        for (Event e = next(); ; e = next()) {
            out.add(e);
            if (e == END) {
                return out;
            }
        }
    }

    static boolean isEnd(Event e) {
        return e == END;
    }

    @Override
    public void close() {
        try {
            response.body().close();
        }
        catch (IOException e) {
            // Gone already.
        }
    }
}
