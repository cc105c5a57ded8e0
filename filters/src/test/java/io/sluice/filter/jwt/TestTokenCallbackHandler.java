package io.sluice.filter.jwt;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;

import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback;

import io.sluice.testkit.BearerToken;


/**
 * The login callback a Kafka client in these tests is configured with ({@code sasl.login.callback.handler.class}):
 * it hands out tokens minted by the test. Each client names its token source in its JAAS options
 * ({@code tokenSource="..."}); the test registers a supplier under that name, called at every (re-)login.
 */
public final class TestTokenCallbackHandler implements AuthenticateCallbackHandler {

    private static final Map<String, Supplier<String>> SOURCES = new ConcurrentHashMap<>();
    private static final Map<String, AtomicInteger> ISSUED = new ConcurrentHashMap<>();
    private static final AtomicInteger NEXT = new AtomicInteger();

    private String source;

    /** Registers a token source and returns the JAAS config that uses it. */
    public static String jaasConfig(Supplier<String> tokens) {
        String name = "source-" + NEXT.incrementAndGet();
        SOURCES.put(name, tokens);
        ISSUED.put(name, new AtomicInteger());
        return "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required tokenSource=\"" + name + "\";";
    }

    /** How many tokens the source behind this JAAS config has handed out. */
    public static int issued(String jaasConfig) {
        String name = jaasConfig.replaceAll(".*tokenSource=\"([^\"]+)\".*", "$1");
        return ISSUED.get(name).get();
    }

    @Override
    public void configure(Map<String, ?> configs, String saslMechanism, List<AppConfigurationEntry> jaasConfigEntries) {
        source = (String) jaasConfigEntries.get(0).getOptions().get("tokenSource");
    }

    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
        for (Callback callback : callbacks) {
            if (!(callback instanceof OAuthBearerTokenCallback tokenCallback)) {
                throw new UnsupportedCallbackException(callback);
            }
            String value = SOURCES.get(source).get();
            ISSUED.get(source).incrementAndGet();
            tokenCallback.token(new BearerToken(value));
        }
    }

    @Override
    public void close() {
    }
}
