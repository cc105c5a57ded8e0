package io.sluice.filter.audit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.LoggerFactory;

import io.sluice.logging.RateLimitedLog;
import io.sluice.proxy.filter.AuthenticatedPrincipal;
import io.sluice.proxy.filter.ConnectionFilter;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.RequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;
import io.sluice.proxy.filter.ResponseFilter;
import io.sluice.proxy.filter.ResponseFilterResult;

/**
 * One client connection's audit trail. It observes and never changes: every request and response goes on as it came,
 * and a failure here is logged, never a close. Placed first in the chain, it sees requests as the client sent them
 * and responses as the client gets them, after every other filter (an answer JwtAuth made, a throttle a quota set).
 *
 * <ul>
 *   <li>the connection opening and closing ({@link ConnectionFilter}), with its byte counts;</li>
 *   <li>SaslHandshake and SaslAuthenticate answers, and a principal an authenticating filter reports by other means:
 *       authentication events;</li>
 *   <li>the requests {@link RequestSummaries} reads, each with a response hook that observes its answer: admin
 *       events, and the names of what group and transaction APIs answer about;</li>
 *   <li>every other response, in {@code onResponse}: denials, policy refusals and throttles. Fetch and ShareFetch
 *       responses only when the proxy decodes them anyway ({@link #requiresDecodedResponse}).</li>
 * </ul>
 */
final class AuditFilter implements RequestFilter, ResponseFilter, ConnectionFilter {

    private static final RateLimitedLog FAILED = new RateLimitedLog(LoggerFactory.getLogger(AuditFilter.class));

    /** Admin requests kept for a close that comes before their answers, at most; older ones are then reported as unanswered at once. */
    static final int MAX_UNANSWERED = 100;

    static final Set<Errors> DENIALS = EnumSet.of(Errors.TOPIC_AUTHORIZATION_FAILED, Errors.GROUP_AUTHORIZATION_FAILED,
            Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, Errors.DELEGATION_TOKEN_AUTHORIZATION_FAILED);

    /** How a policy names itself in a refusal's message (docs/audit.md, "Policy refusals"): {@code policy <name>: <why>} or, as the Policies filter writes, {@code policy <name> (rule <rule>): <why>}. */
    static final Pattern POLICY_MESSAGE = Pattern.compile("^policy ([A-Za-z0-9_.*-]{1,100})(?: \\(rule [^)]{1,200}\\))?:");

    private final AuditLog log;
    private Session session;
    private Instant openedAt;
    /** The principal last reported authenticated on this connection. */
    private String reported;
    private boolean authenticatedBefore;
    private String requestedMechanism;
    private final Map<Integer, RequestSummary> unanswered = new LinkedHashMap<>();

    AuditFilter(AuditLog log) {
        this.log = log;
    }

    // ---- the connection ----

    @Override
    public void onConnectionOpened(FilterContext context) {
        session(context);
    }

    @Override
    public void onConnectionClosed(FilterContext context) {
        guarded("close", () -> {
            Session s = session(context);
            notice(context);
            for (RequestSummary request : unanswered.values()) {
                emit(adminEvent(request, null, "unanswered", context));
            }
            unanswered.clear();
            log.emit(s.event(EventType.CONNECTION_CLOSED, log.now(), Secrets.text(reported))
                    .with("bytesFromClient", context.bytesFromClient())
                    .with("bytesToClient", context.bytesToClient())
                    .with("durationMs", Duration.between(openedAt, log.now()).toMillis()));
        });
    }

    private Session session(FilterContext context) {
        if (session == null) {
            session = Session.of(context);
            openedAt = log.now();
            log.emit(session.event(EventType.CONNECTION_OPENED, openedAt, null));
        }
        return session;
    }

    // ---- requests ----

    @Override
    public boolean shouldHandleRequest(ApiKeys apiKey, short apiVersion) {
        return RequestSummaries.READ.contains(apiKey);
    }

    @Override
    public CompletionStage<RequestFilterResult> onRequest(ApiKeys apiKey, short apiVersion, RequestHeaderData header, ApiMessage request,
                                                          FilterContext context) {
        RequestSummary summary;
        try {
            session(context);
            notice(context);
            summary = RequestSummaries.of(apiKey, apiVersion, request);
        } catch (RuntimeException e) {
            FAILED.log("{}: audit: a {} request could not be read: {}", context.channelDescriptor(), apiKey, e.toString());
            summary = RequestSummary.none(apiKey);
        }
        int id = header.correlationId();
        if (summary.admin()) {
            track(id, summary, context);
        }
        RequestSummary asked = summary;
        return context.requestFilterResultBuilder().forward(header, request)
                .withResponseHook(response -> observe(apiKey, apiVersion, asked, response, context, id))
                .completed();
    }

    private void track(int id, RequestSummary summary, FilterContext context) {
        if (unanswered.size() >= MAX_UNANSWERED) {
            Iterator<RequestSummary> oldest = unanswered.values().iterator();
            emit(adminEvent(oldest.next(), null, "unanswered", context));
            oldest.remove();
        }
        unanswered.put(id, summary);
    }

    // ---- responses ----

    @Override
    public boolean shouldHandleResponse(ApiKeys apiKey, short apiVersion) {
        // The APIs whose requests it reads see their responses through the hook.
        return !RequestSummaries.READ.contains(apiKey);
    }

    @Override
    public boolean requiresDecodedResponse(ApiKeys apiKey, short apiVersion) {
        return apiKey != ApiKeys.FETCH && apiKey != ApiKeys.SHARE_FETCH && shouldHandleResponse(apiKey, apiVersion);
    }

    @Override
    public CompletionStage<ResponseFilterResult> onResponse(ApiKeys apiKey, short apiVersion, ResponseHeaderData header, ApiMessage response,
                                                            FilterContext context) {
        return observe(apiKey, apiVersion, RequestSummary.none(apiKey), response, context, -1)
                .thenApply(done -> context.responseFilterResultBuilder().forward(header, response).build());
    }

    /**
     * Makes the events one response calls for. Completes at once, except when it must name topics the response knows
     * by id only (a Fetch or Produce v13+ denial): then when the connection's topic names answer (from their cache,
     * where JwtAuth put them, or a Metadata request), so that the events keep their order. Never fails.
     */
    private CompletionStage<Void> observe(ApiKeys api, short version, RequestSummary request, ApiMessage response, FilterContext context, int id) {
        Outcome.Collector outcomes;
        try {
            session(context);
            if (api == ApiKeys.SASL_HANDSHAKE) {
                handshake(request, (SaslHandshakeResponseData) response, context);
                return DONE;
            }
            if (api == ApiKeys.SASL_AUTHENTICATE) {
                authenticate((SaslAuthenticateResponseData) response, context);
                return DONE;
            }
            notice(context);
            outcomes = ResponseOutcomes.of(api, version, response, request);
            if (request.admin() || outcomes.unnamedTopicIds().isEmpty()) {
                guarded(api.name, () -> events(api, request, response, outcomes, context, id));
                return DONE;
            }
        } catch (RuntimeException e) {
            FAILED.log("audit: observing {} failed: {}", api.name, e.toString());
            return DONE;
        }
        return context.topicNames(List.copyOf(outcomes.unnamedTopicIds())).handle((names, error) -> {
            if (names != null) {
                outcomes.rename(names);
            }
            guarded(api.name, () -> events(api, request, response, outcomes, context, id));
            return null;
        });
    }

    private static final CompletionStage<Void> DONE = java.util.concurrent.CompletableFuture.completedStage(null);

    private void events(ApiKeys api, RequestSummary request, ApiMessage response, Outcome.Collector outcomes, FilterContext context, int id) {
        int throttleMs = ResponseOutcomes.TopLevel.throttleTimeMs(response);
        if (request.admin()) {
            unanswered.remove(id);
            emit(adminEvent(request, outcomes, null, context).with("throttleTimeMs", throttleMs));
        }
        List<Outcome> denied = new ArrayList<>();
        List<Outcome> refused = new ArrayList<>();
        for (Outcome o : outcomes.outcomes()) {
            if (DENIALS.contains(o.error())) {
                denied.add(o);
            } else if (o.error() == Errors.POLICY_VIOLATION || o.message() != null && POLICY_MESSAGE.matcher(o.message()).find()) {
                refused.add(o);
            }
        }
        if (!denied.isEmpty()) {
            emit(event(EventType.AUTHORIZATION_DENIED).with("api", api.name).with("resources", outcomeList(denied)));
        }
        if (!refused.isEmpty()) {
            log.emitSampled(event(EventType.POLICY_REFUSED).with("api", api.name).with("policy", policyName(refused))
                    .with("resources", outcomeList(refused)), session.virtualCluster(), reported);
        }
        if (throttleMs > 0) {
            log.emitSampled(event(EventType.QUOTA_THROTTLED).with("api", api.name).with("throttleTimeMs", throttleMs),
                    session.virtualCluster(), reported);
        }
    }

    // ---- authentication ----

    private void handshake(RequestSummary request, SaslHandshakeResponseData response, FilterContext context) {
        requestedMechanism = (String) request.settings().get("mechanism");
        if (response.errorCode() != 0) {
            Errors error = Errors.forCode(response.errorCode());
            String enabled = response.mechanisms().isEmpty() ? "" : " Enabled: " + Secrets.text(String.join(", ", response.mechanisms())) + ".";
            emit(event(EventType.AUTHENTICATION_FAILED).with("mechanism", requestedMechanism).with("error", error.name())
                    .with("reason", error.message() + enabled));
        }
    }

    private void authenticate(SaslAuthenticateResponseData response, FilterContext context) {
        if (response.errorCode() != 0) {
            Errors error = Errors.forCode(response.errorCode());
            String reason = Secrets.message(response.errorMessage());
            emit(event(EventType.AUTHENTICATION_FAILED).with("mechanism", requestedMechanism).with("error", error.name())
                    .with("reason", reason != null ? reason : error.message()));
            return;
        }
        AuthenticatedPrincipal principal = context.principal().orElse(null);
        reported = principal == null ? null : principal.name();
        AuditEvent event = event(EventType.AUTHENTICATION_SUCCEEDED)
                .with("mechanism", principal != null ? principal.mechanism() : requestedMechanism)
                .with("reauthentication", authenticatedBefore);
        if (response.sessionLifetimeMs() > 0) {
            event.with("sessionLifetimeMs", response.sessionLifetimeMs());
        }
        authenticatedBefore = true;
        emit(event);
    }

    /** A principal that an authenticating filter reported other than through SASL (or changed): an authentication event. */
    private void notice(FilterContext context) {
        AuthenticatedPrincipal principal = context.principal().orElse(null);
        if (principal != null && !principal.name().equals(reported)) {
            reported = principal.name();
            emit(event(EventType.AUTHENTICATION_SUCCEEDED).with("mechanism", principal.mechanism()).with("reauthentication", authenticatedBefore));
            authenticatedBefore = true;
        }
    }

    // ---- events ----

    private AuditEvent event(EventType type) {
        return session.event(type, log.now(), reported == null ? null : Secrets.text(reported));
    }

    private void emit(AuditEvent event) {
        log.emit(event);
    }

    /**
     * The admin event of one request: each resource it named with what it asked and its outcome, and the request's
     * outcome: {@code succeeded}, {@code failed} (every resource), {@code partial}, or {@code unanswered} (the
     * connection closed first).
     */
    private AuditEvent adminEvent(RequestSummary request, Outcome.Collector outcomes, String fixedOutcome, FilterContext context) {
        session(context);
        List<Map<String, Object>> resources = new ArrayList<>();
        int failed = 0;
        List<Outcome> unmatched = outcomes == null ? List.of() : new ArrayList<>(outcomes.outcomes());
        for (Resource r : request.resources()) {
            Map<String, Object> shown = new LinkedHashMap<>();
            shown.put("type", r.type());
            shown.put("name", r.name());
            if (!r.details().isEmpty()) {
                shown.put("details", r.details());
            }
            if (outcomes != null) {
                Outcome own = null;
                for (Iterator<Outcome> it = unmatched.iterator(); it.hasNext(); ) {
                    Outcome o = it.next();
                    if (o.type().equals(r.type()) && Objects.equals(o.name(), r.name())) {
                        own = o;
                        it.remove();
                        break;
                    }
                }
                shown.put("error", own == null ? Errors.NONE.name() : own.error().name());
                if (own != null) {
                    failed++;
                    if (own.message() != null) {
                        shown.put("message", own.message());
                    }
                }
            }
            resources.add(shown);
        }
        // Errors of resources past the ones shown (or that the response named differently) still count.
        failed += unmatched.size() + (outcomes == null ? 0 : outcomes.omitted());
        int total = request.resources().size() + request.omitted();
        String outcome = fixedOutcome != null ? fixedOutcome : failed == 0 ? "succeeded" : failed >= total ? "failed" : "partial";
        AuditEvent event = event(EventType.ADMIN).with("api", request.api().name).with("outcome", outcome);
        request.settings().forEach(event::with);
        event.with("resources", resources);
        if (request.omitted() > 0) {
            event.with("resourcesOmitted", request.omitted());
        }
        return event;
    }

    private static List<Map<String, Object>> outcomeList(List<Outcome> outcomes) {
        List<Map<String, Object>> list = new ArrayList<>();
        for (Outcome o : outcomes) {
            Map<String, Object> shown = new LinkedHashMap<>();
            shown.put("type", o.type());
            shown.put("name", o.name());
            shown.put("error", o.error().name());
            if (o.message() != null) {
                shown.put("message", o.message());
            }
            list.add(shown);
        }
        return list;
    }

    private static String policyName(List<Outcome> refused) {
        for (Outcome o : refused) {
            if (o.message() != null) {
                Matcher m = POLICY_MESSAGE.matcher(o.message());
                if (m.find()) {
                    return m.group(1);
                }
            }
        }
        return null;
    }

    /** Audit work never fails the traffic it watches: a bug here is logged (rate-limited) and the message goes on. */
    private static void guarded(String what, Runnable work) {
        try {
            work.run();
        } catch (RuntimeException e) {
            FAILED.log("audit: observing {} failed: {}", what, e.toString());
        }
    }
}
