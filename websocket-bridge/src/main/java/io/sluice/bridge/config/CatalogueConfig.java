package io.sluice.bridge.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The AsyncAPI document ({@code GET /asyncapi.json}) and the catalogue page ({@code GET /catalogue}) on the WebSocket
 * port. Off by default: the document names every configured topic, endpoint and schema to anyone who can reach the
 * port, before any token is shown (docs/bridge-asyncapi.md).
 *
 * @param enabled   serve the document and the page
 * @param publicUrl the WebSocket URL clients use, e.g. {@code wss://stream.example.com/ws} (behind a proxy or load
 *                  balancer it differs from the listener); when absent, the document is built per request from the
 *                  request's Host header, {@code server.path} and ws/wss as {@code server.tls} says
 */
public record CatalogueConfig(boolean enabled, String publicUrl) {

    public static CatalogueConfig defaults() {
        return new CatalogueConfig(false, null);
    }

    @JsonCreator
    static CatalogueConfig fromYaml(@JsonProperty("enabled") Boolean enabled, @JsonProperty("publicUrl") String publicUrl) {
        return new CatalogueConfig(Boolean.TRUE.equals(enabled), publicUrl);
    }

    /** The parsed {@code publicUrl}, or null when none is set. */
    public URI publicUri() {
        return publicUrl == null ? null : URI.create(publicUrl);
    }

    void validate(List<String> problems) {
        if (publicUrl == null) {
            return;
        }
        try {
            URI uri = new URI(publicUrl);
            if (!"ws".equals(uri.getScheme()) && !"wss".equals(uri.getScheme())) {
                problems.add("catalogue.publicUrl: must start with ws:// or wss://");
            }
            else if (uri.getHost() == null) {
                problems.add("catalogue.publicUrl: must name a host (wss://stream.example.com/ws)");
            }
            else if (uri.getQuery() != null || uri.getFragment() != null || uri.getUserInfo() != null) {
                problems.add("catalogue.publicUrl: must not carry a query, fragment or user info");
            }
        }
        catch (URISyntaxException e) {
            problems.add("catalogue.publicUrl: not a URL: " + e.getReason());
        }
    }
}
