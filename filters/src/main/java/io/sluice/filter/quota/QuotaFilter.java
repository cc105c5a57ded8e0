package io.sluice.filter.quota;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.auth.Permissions;
import io.sluice.auth.Untrusted;
import io.sluice.auth.QuotaLimits;
import io.sluice.filter.jwt.JwtAuth;
import io.sluice.proxy.filter.AuthenticatedPrincipal;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.RequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;
import io.sluice.proxy.filter.RequestFilterResultBuilder;
import io.sluice.proxy.filter.ResponseHook;

/**
 * One connection's quota enforcement, as a Kafka broker enforces its client quotas (KIP-13, KIP-124, KIP-219). Every
 * request counts against its principal's request rate, a Produce's record bytes against the produce rate as the
 * request passes, a Fetch's (or ShareFetch's) response size against the fetch rate as it arrives (as a broker counts a
 * fetch: the whole response; read from its frame, so the response is not decoded for it). When a rate
 * is over its limit, the response carries {@code throttle_time_ms} (the larger of the proxy's and the broker's) and the
 * connection is muted for that time ({@link FilterContext#throttleClient}) as the response goes back: kafka-clients and
 * librdkafka wait that long before their next request to this connection, and a client that does not is simply not
 * read. Nothing is dropped or refused; a request is never held. A pause asked for as a request passes starts then:
 * the time its response took is deducted from what the response says.
 *
 * <p>A fetch over the quota is still delivered, and paid for by a longer throttle after it: the proxy has already
 * read the records from the broker, and emptying the response, as a broker does, would make the consumer fetch the same
 * bytes again (and leave ShareFetch records acquired and undelivered). So that one response cannot overshoot by much,
 * a Fetch's {@code max_bytes} is lowered to what the quota allows over the window, as the broker does
 * (KIP-74 still returns at least one batch, so a consumer always makes progress).</p>
 */
final class QuotaFilter implements RequestFilter {

    private static final Logger LOG = LoggerFactory.getLogger(QuotaFilter.class);

    /** Not counted: what a client must send before it can do anything, and what the quotas cannot slow down anyway. */
    private static final Set<ApiKeys> EXEMPT = EnumSet.of(ApiKeys.API_VERSIONS, ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_AUTHENTICATE);
    /** Fetch v3 is the first with a request-wide {@code max_bytes}. */
    private static final short FETCH_MAX_BYTES_VERSION = 3;

    private final Quotas.Shared shared;
    private Optional<AuthenticatedPrincipal> seen;
    private String principal;
    private QuotaLimits limits;
    private PrincipalUsage usage;

    QuotaFilter(Quotas.Shared shared) {
        this.shared = shared;
    }

    @Override
    public boolean shouldHandleRequest(ApiKeys apiKey, short apiVersion) {
        // Every request counts against the request rate; with JwtAuth in the chain (which handles every request) they
        // are decoded anyway.
        return !EXEMPT.contains(apiKey);
    }

    @Override
    public CompletionStage<RequestFilterResult> onRequest(ApiKeys apiKey, short apiVersion, RequestHeaderData header, ApiMessage request,
                                                          FilterContext context) {
        if (EXEMPT.contains(apiKey)) {
            return context.forwardRequest(header, request);
        }
        follow(context);
        long now = shared.clock().getAsLong();
        Throttle throttle = new Throttle();
        throttle.ask(QuotaKind.REQUEST, record(QuotaKind.REQUEST, 1, now), now);
        boolean noResponse = false;
        if (request instanceof ProduceRequestData produce) {
            throttle.ask(QuotaKind.PRODUCE, record(QuotaKind.PRODUCE, RecordBytes.produced(produce), now), now);
            noResponse = produce.acks() == 0;
        }
        Long fetchLimit = limits.fetchBytesPerSecond();
        boolean fetching = apiKey == ApiKeys.FETCH || apiKey == ApiKeys.SHARE_FETCH;
        boolean measureFetch = fetchLimit != null && fetching;
        if (measureFetch && request instanceof FetchRequestData fetch && apiVersion >= FETCH_MAX_BYTES_VERSION) {
            fetch.setMaxBytes((int) Math.min(fetch.maxBytes(), shared.windowAllowance(fetchLimit)));
        }
        if (noResponse) {
            // acks=0: no response to carry the throttle time, so only the mute tells the client (as a broker does).
            throttle.apply(context, null, apiVersion, now);
            return context.forwardRequest(header, request);
        }
        if (!measureFetch && !throttle.asked()) {
            return context.forwardRequest(header, request);
        }
        RequestFilterResultBuilder forward = context.requestFilterResultBuilder().forward(header, request);
        if (fetching) {
            // Fetch and ShareFetch responses begin with throttle_time_ms: counted by their size and throttled in their
            // bytes, never decoded for the quota (decoding and encoding a fetch costs more than forwarding it).
            return forward.withResponseSizeHook(bytes -> {
                long then = shared.clock().getAsLong();
                if (measureFetch) {
                    throttle.ask(QuotaKind.FETCH, record(QuotaKind.FETCH, bytes, then), then);
                }
                return throttle.apply(context, null, apiVersion, then);
            }).completed();
        }
        return forward.withResponseHook(ResponseHook.of(response -> {
            long then = shared.clock().getAsLong();
            throttle.apply(context, response, apiVersion, then);
        })).completed();
    }

    /** Picks up the connection's principal and its limits when it changes (authentication, re-authentication). */
    private void follow(FilterContext context) {
        Optional<AuthenticatedPrincipal> now = context.principal();
        if (seen != null && (now.isEmpty() ? seen.isEmpty() : seen.isPresent() && seen.get() == now.get())) {
            return;
        }
        seen = now;
        principal = now.map(AuthenticatedPrincipal::name).orElse(Quotas.UNAUTHENTICATED);
        QuotaLimits token = now.flatMap(p -> p.attribute(JwtAuth.PERMISSIONS_ATTRIBUTE, Permissions.class)).map(Permissions::quotas)
                .orElse(QuotaLimits.NONE);
        limits = shared.rules().enforced(principal, token);
        usage = shared.usages().usage(principal);
    }

    private long record(QuotaKind kind, double amount, long now) {
        Long limit = kind.limit(limits);
        long throttle = usage.record(kind, amount, limit, now);
        while (throttle == PrincipalUsage.EVICTED) {
            usage = shared.usages().usage(principal);
            throttle = usage.record(kind, amount, limit, now);
        }
        return throttle;
    }

    /**
     * The latest end of a pause any kind asked for on one request, and which kind asked for it. Kept as an end, not a
     * length: a pause asked for as the request passed is partly over by the time its response comes back (the broker's
     * time counts as waiting), so the client is told, and muted for, only what is left of it.
     */
    private final class Throttle {
        private long end;
        private QuotaKind kind;

        void ask(QuotaKind asking, long throttleNanos, long now) {
            if (throttleNanos > 0 && (kind == null || now + throttleNanos - end > 0)) {
                end = now + throttleNanos;
                kind = asking;
            }
        }

        boolean asked() {
            return kind != null;
        }

        /**
         * Tells the client in the response (when there is one) and mutes the connection for the same whole
         * milliseconds, which it returns (0 for no pause).
         */
        int apply(FilterContext context, ApiMessage response, short version, long now) {
            long nanos = kind == null ? 0 : end - now;
            if (nanos <= 0) {
                return 0;
            }
            int millis = (int) Math.min(Integer.MAX_VALUE, (nanos + 999_999) / 1_000_000);
            if (response != null) {
                ThrottleTimes.raise(response, version, millis);
            }
            context.throttleClient(Duration.ofMillis(millis));
            usage.series().throttled(kind, millis * 1_000_000L);
            if (LOG.isDebugEnabled()) {
                LOG.debug("{}: {} throttled {} ms ({} quota)", context.channelDescriptor(), Untrusted.text(principal), millis, kind.label());
            }
            return millis;
        }
    }
}
