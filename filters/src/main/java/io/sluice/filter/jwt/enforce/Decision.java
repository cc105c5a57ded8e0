package io.sluice.filter.jwt.enforce;

import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.ApiMessage;

import io.sluice.proxy.filter.ResponseHook;

/** What authorization decided about one request. */
public sealed interface Decision {

    /** Send it on (perhaps changed in place); {@code rewrite}, if not null, is the hook that changes its response. */
    record Forward(ResponseHook rewrite) implements Decision {
    }

    /** Answer with the API's own error response carrying {@code error} for every resource in the request. */
    record Deny(ApiException error) implements Decision {
    }

    /** Answer with this response, without asking the broker. */
    record Respond(ApiMessage response) implements Decision {
    }

    /** The request cannot be served on this connection at all. */
    record Close(String why) implements Decision {
    }

    Decision FORWARD = new Forward(null);

    static Decision forward(ResponseHook rewrite) {
        return new Forward(rewrite);
    }

    static Decision deny(ApiException error) {
        return new Deny(error);
    }
}
