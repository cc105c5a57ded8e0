package io.sluice.bridge.sse;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.netty.handler.codec.http.QueryStringDecoder;
import io.sluice.format.ExactJson;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.bridge.protocol.RequestRefusedException;

/**
 * The query of {@code GET {path}/sse} (docs/bridge-http.md#query): the endpoints and what applies to each of them,
 * as the WebSocket {@code subscribe} requests they stand for (so that they are checked by the same code), and the
 * positions to resume from. Problems are {@code malformed}, naming the parameter; values are never echoed.
 */
record StreamQuery(List<String> endpoints, JsonNode filter, ArrayNode fields, boolean delta, boolean snapshot, String lastEventId) {

    // As a WebSocket subscribe's filter is read (ClientRequests): its literals compare exactly with records' numbers.
    private static final ExactJson JSON = ExactJson.withDepth(64);
    private static final Set<String> SINGLE = Set.of("filter", "fields", "delta", "snapshot", "lastEventId");
    private static final int MAX_NAME_CHARS = 40;

    static StreamQuery parse(String uri, int maxEndpoints) throws RequestRefusedException {
        // The request line is bounded by connections.maxRequestLineBytes, so is everything here.
        Map<String, List<String>> params = new QueryStringDecoder(uri).parameters();
        // Token parameters were refused before this (HttpCredentials), as unknown ones would be.
        for (Map.Entry<String, List<String>> p : params.entrySet()) {
            String name = p.getKey();
            if (!name.equals("endpoint") && !SINGLE.contains(name)) {
                String shown = name.length() > MAX_NAME_CHARS ? name.substring(0, MAX_NAME_CHARS) + "..." : name;
                throw malformed("unknown parameter " + shown + "; a stream takes endpoint, filter, fields, delta, snapshot and lastEventId");
            }
            if (SINGLE.contains(name) && p.getValue().size() > 1) {
                throw malformed("parameter " + name + " appears more than once");
            }
        }
        List<String> endpoints = params.getOrDefault("endpoint", List.of());
        if (endpoints.isEmpty()) {
            throw malformed("name at least one endpoint: ?endpoint=/scores/live");
        }
        if (endpoints.size() > maxEndpoints) {
            throw malformed("more than http.maxEndpointsPerStream (" + maxEndpoints + ") endpoint parameters; open another stream");
        }
        Set<String> distinct = new LinkedHashSet<>(endpoints);
        if (distinct.size() != endpoints.size()) {
            throw malformed("an endpoint parameter appears twice");
        }
        JsonNode filter = null;
        String filterText = single(params, "filter");
        if (filterText != null) {
            try {
                filter = JSON.read(filterText);
            }
            catch (IOException e) {
                throw malformed("parameter filter is not JSON (URL-encode the filter object)");
            }
        }
        ArrayNode fields = null;
        String fieldsText = single(params, "fields");
        if (fieldsText != null) {
            fields = ExactJson.NODES.arrayNode();
            for (String pointer : fieldsText.split(",", -1)) {
                fields.add(pointer);
            }
        }
        return new StreamQuery(new ArrayList<>(endpoints), filter, fields, bool(params, "delta"), bool(params, "snapshot"),
                single(params, "lastEventId"));
    }

    /** The WebSocket subscribe that endpoint parameter {@code index} stands for, recovering from {@code recover}. */
    ObjectNode subscribe(int index, List<io.sluice.bridge.protocol.ClientRequest.Position> recover) {
        ObjectNode s = ExactJson.NODES.objectNode().put("type", "subscribe").put("endpoint", endpoints.get(index));
        if (filter != null) {
            s.set("filter", filter);
        }
        if (fields != null) {
            s.set("fields", fields);
        }
        s.put("delta", delta).put("snapshot", snapshot);
        if (!recover.isEmpty()) {
            ArrayNode list = s.putArray("recover");
            recover.forEach(p -> list.addObject().put("epoch", p.epoch()).put("seq", p.seq()));
        }
        return s;
    }

    private static String single(Map<String, List<String>> params, String name) {
        List<String> values = params.get(name);
        return values == null ? null : values.get(0);
    }

    private static boolean bool(Map<String, List<String>> params, String name) throws RequestRefusedException {
        String value = single(params, name);
        if (value == null || value.equals("false")) {
            return false;
        }
        if (value.equals("true")) {
            return true;
        }
        throw malformed("parameter " + name + " is true or false");
    }

    private static RequestRefusedException malformed(String message) {
        return new RequestRefusedException(ErrorCodes.MALFORMED, message, null);
    }
}
