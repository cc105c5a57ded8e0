package io.sluice.bridge.config;

import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The HTTP transport beside WebSocket, for clients behind intermediaries that break upgrades: Server-Sent Events at
 * {@code {server.path}/sse}, the session cookie at {@code {server.path}/session} and publishing at
 * {@code {server.path}/publish} (docs/bridge-http.md).
 *
 * @param enabled               serve the three paths; false: they answer 404 like any unknown path
 * @param heartbeat             a stream that has been quiet this long gets a comment line, so that proxies with idle
 *                              timeouts keep it open
 * @param maxEndpointsPerStream endpoint parameters one stream may name
 * @param maxLastEventIdBytes   longest {@code Last-Event-ID} accepted (it holds the stream's positions); longer: 400.
 *                              The whole header block is bounded by {@code connections.maxHeaderBytes} before this
 *                              applies, so the smaller of the two is the effective limit
 * @param cookieSecure          the session cookie is {@code Secure}; false only for plain-http development, where
 *                              browsers drop Secure cookies (localhost excepted)
 * @param http2                 offer HTTP/2: ALPN {@code h2} on the TLS listener, h2c by prior knowledge without TLS;
 *                              false: HTTP/1.1 only
 * @param maxConcurrentStreams  HTTP/2 streams one connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS);
 *                              more are refused (RST_STREAM REFUSED_STREAM). Also bounds its event streams
 */
public record HttpConfig(boolean enabled, Duration heartbeat, int maxEndpointsPerStream, int maxLastEventIdBytes, boolean cookieSecure,
                         boolean http2, int maxConcurrentStreams) {

    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(15);
    public static final int DEFAULT_MAX_ENDPOINTS_PER_STREAM = 16;
    public static final int DEFAULT_MAX_LAST_EVENT_ID_BYTES = 4096;
    public static final int DEFAULT_MAX_CONCURRENT_STREAMS = 100;

    public HttpConfig {
        heartbeat = heartbeat == null ? DEFAULT_HEARTBEAT : heartbeat;
    }

    public HttpConfig(boolean enabled, Duration heartbeat, int maxEndpointsPerStream, int maxLastEventIdBytes, boolean cookieSecure) {
        this(enabled, heartbeat, maxEndpointsPerStream, maxLastEventIdBytes, cookieSecure, true, DEFAULT_MAX_CONCURRENT_STREAMS);
    }

    public static HttpConfig defaults() {
        return new HttpConfig(true, DEFAULT_HEARTBEAT, DEFAULT_MAX_ENDPOINTS_PER_STREAM, DEFAULT_MAX_LAST_EVENT_ID_BYTES, true);
    }

    @JsonCreator
    static HttpConfig fromYaml(@JsonProperty("enabled") Boolean enabled,
                               @JsonProperty("heartbeat") Duration heartbeat,
                               @JsonProperty("maxEndpointsPerStream") Integer maxEndpointsPerStream,
                               @JsonProperty("maxLastEventIdBytes") Integer maxLastEventIdBytes,
                               @JsonProperty("cookieSecure") Boolean cookieSecure,
                               @JsonProperty("http2") Boolean http2,
                               @JsonProperty("maxConcurrentStreams") Integer maxConcurrentStreams) {
        return new HttpConfig(enabled == null || enabled, heartbeat,
                maxEndpointsPerStream == null ? DEFAULT_MAX_ENDPOINTS_PER_STREAM : maxEndpointsPerStream,
                maxLastEventIdBytes == null ? DEFAULT_MAX_LAST_EVENT_ID_BYTES : maxLastEventIdBytes,
                cookieSecure == null || cookieSecure,
                http2 == null || http2,
                maxConcurrentStreams == null ? DEFAULT_MAX_CONCURRENT_STREAMS : maxConcurrentStreams);
    }

    /** Problems, each naming its field under {@code http.}. */
    void validate(List<String> problems) {
        if (heartbeat.compareTo(Duration.ofSeconds(1)) < 0) {
            problems.add("http.heartbeat: must be at least 1s");
        }
        if (maxEndpointsPerStream < 1 || maxEndpointsPerStream > 256) {
            problems.add("http.maxEndpointsPerStream: must be 1..256");
        }
        if (maxLastEventIdBytes < 64 || maxLastEventIdBytes > 65_536) {
            problems.add("http.maxLastEventIdBytes: must be 64..65536");
        }
        if (maxConcurrentStreams < 1 || maxConcurrentStreams > 1000) {
            problems.add("http.maxConcurrentStreams: must be 1..1000");
        }
    }
}
