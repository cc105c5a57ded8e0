package io.sluice.proxy.filter;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;

/** Builds a {@link ResponseFilterResult}: forward or drop, optionally closing the connection afterwards. */
public final class ResponseFilterResultBuilder {

    private ResponseHeaderData header;
    private ApiMessage message;
    private boolean drop;
    private boolean close;
    private boolean decided;

    public ResponseFilterResultBuilder forward(ResponseHeaderData header, ApiMessage response) {
        decide();
        this.header = Objects.requireNonNull(header, "header");
        this.message = Objects.requireNonNull(response, "response");
        return this;
    }

    public ResponseFilterResultBuilder drop() {
        decide();
        this.drop = true;
        return this;
    }

    public ResponseFilterResultBuilder withCloseConnection() {
        this.close = true;
        return this;
    }

    public ResponseFilterResult build() {
        if (!decided && !close) {
            throw new IllegalStateException("choose forward or drop (or withCloseConnection)");
        }
        return new Result(header, message, drop || !decided, close);
    }

    public CompletionStage<ResponseFilterResult> completed() {
        return CompletableFuture.completedFuture(build());
    }

    private void decide() {
        if (decided) {
            throw new IllegalStateException("a response filter result has exactly one outcome");
        }
        decided = true;
    }

    private record Result(ResponseHeaderData header, ApiMessage message, boolean drop, boolean closeConnection)
            implements ResponseFilterResult {
    }
}
