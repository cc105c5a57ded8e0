package io.sluice.bridge.asyncapi;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.sluice.bridge.config.BridgeConfig;

/** The token model as an AsyncAPI security scheme (docs/bridge.md, docs/jwt.md). */
final class Security {

    private Security() {
    }

    static ObjectNode scheme(BridgeConfig config) {
        String claim = config.auth().jwt() == null ? "sluice" : config.auth().jwt().permissionsClaim();
        return JsonNodeFactory.instance.objectNode()
                .put("type", "http")
                .put("scheme", "bearer")
                .put("bearerFormat", "JWT")
                .put("description", "A JWT, sent as `token` in the first message, `{\"type\": \"connect\", \"token\": ...}` "
                        + "(not in an HTTP header: browsers cannot set one on a WebSocket), and renewed with `refresh`. "
                        + "A rejected token closes the connection with 4001. The `" + claim + "` claim holds the "
                        + "permissions: `topics` grants read/write per topic name or pattern; `keys.<topic>.read|write` "
                        + "grants per key pattern within a topic (an endpoint's key is matched as its UTF-8 bytes); "
                        + "`filters` maps topic patterns to a mandatory row filter ANDed into every subscription of those "
                        + "topics. `subscribe` needs read on every key the endpoint covers, `publish` write on its topic "
                        + "and key; otherwise the answer is the error `forbidden` (docs/bridge.md, docs/jwt.md).");
    }
}
