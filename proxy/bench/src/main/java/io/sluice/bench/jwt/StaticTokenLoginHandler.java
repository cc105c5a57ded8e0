package io.sluice.bench.jwt;

import java.util.List;
import java.util.Map;

import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;

import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback;

import io.sluice.testkit.BearerToken;

/**
 * The OAUTHBEARER login callback of the benchmark's clients ({@code sasl.login.callback.handler.class}): presents
 * the token given in the JAAS options ({@code token="..."}), minted for the run by {@link JwtBenchCredentials}.
 */
public final class StaticTokenLoginHandler implements AuthenticateCallbackHandler {

    private String token;

    @Override
    public void configure(Map<String, ?> configs, String saslMechanism, List<AppConfigurationEntry> jaasConfigEntries) {
        Object option = jaasConfigEntries.get(0).getOptions().get("token");
        if (!(option instanceof String value) || value.isEmpty()) {
            throw new IllegalArgumentException("sasl.jaas.config: the OAuthBearerLoginModule needs a token=\"...\" option");
        }
        token = value;
    }

    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
        for (Callback callback : callbacks) {
            if (!(callback instanceof OAuthBearerTokenCallback tokenCallback)) {
                throw new UnsupportedCallbackException(callback);
            }
            tokenCallback.token(new BearerToken(token));
        }
    }

    @Override
    public void close() {
    }
}
