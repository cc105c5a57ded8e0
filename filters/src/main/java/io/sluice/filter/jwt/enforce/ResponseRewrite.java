package io.sluice.filter.jwt.enforce;

import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Changes a response in place before it reaches the client: removes what the principal may not see, puts
 * back the error entries of resources a request was stripped of. Made when the request is authorized, so
 * it judges by the permissions in force then and knows what was asked.
 */
@FunctionalInterface
public interface ResponseRewrite {

    /** Completes once {@code response} has been changed; runs on the connection's event loop. */
    CompletionStage<Void> apply(ApiMessage response);
}
