package io.sluice.format.registry;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A response body read into memory up to a hard limit. It asks for one chunk at a time, so the HTTP client reads no
 * further ahead than its own buffer, and on passing the limit (or when a declared Content-Length already does) it
 * cancels the subscription, which closes the connection: an endless or 50 MB answer costs at most the limit plus a
 * chunk, never the whole body.
 */
final class LimitedBody implements HttpResponse.BodySubscriber<byte[]> {

    /** The answer was longer than allowed. */
    static final class TooLargeException extends IOException {
        TooLargeException(long limit) {
            super("the answer is longer than maxResponseBytes (" + limit + " bytes)");
        }
    }

    private final long limit;
    private final boolean declaredTooLong;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private volatile Flow.Subscription subscription;
    private long received;
    private boolean done;

    /** @param declaredLength the Content-Length, or -1 when the answer did not say */
    LimitedBody(long limit, long declaredLength) {
        this.limit = limit;
        this.declaredTooLong = declaredLength > limit;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        if (declaredTooLong) {
            fail(new TooLargeException(limit));
            return;
        }
        s.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
        if (done) {
            return;
        }
        for (ByteBuffer item : items) {
            received += item.remaining();
            if (received > limit) {
                fail(new TooLargeException(limit));
                return;
            }
            byte[] chunk = new byte[item.remaining()];
            item.get(chunk);
            bytes.write(chunk, 0, chunk.length);
        }
        subscription.request(1);
    }

    @Override
    public void onError(Throwable throwable) {
        done = true;
        result.completeExceptionally(throwable);
    }

    @Override
    public void onComplete() {
        if (!done) {
            done = true;
            result.complete(bytes.toByteArray());
        }
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return result;
    }

    /** Stops reading: for a request that ran out of time. */
    void cancel() {
        Flow.Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
    }

    private void fail(IOException e) {
        done = true;
        subscription.cancel();
        result.completeExceptionally(e);
    }
}
