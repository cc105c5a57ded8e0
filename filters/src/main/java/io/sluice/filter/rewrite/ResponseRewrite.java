package io.sluice.filter.rewrite;

import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Changes a response in place before it reaches the client. Made while the request is handled, so it knows
 * what was asked and what the request was changed into (JwtAuth: what the principal may see; KeyRouting:
 * which virtual topic a real one stands for).
 */
@FunctionalInterface
public interface ResponseRewrite {

    /** Completes once {@code response} has been changed; runs on the connection's event loop. */
    CompletionStage<Void> apply(ApiMessage response);
}
