package io.sluice.testkit;

import java.text.ParseException;
import java.util.Set;

import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;

import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.JWTParser;

/**
 * A Kafka client's view of a JWT it presents: the value and, to schedule refreshes, the lifetime. The claims are read
 * without verifying the signature, which is the proxy's job.
 */
public record BearerToken(String value) implements OAuthBearerToken {

    private JWTClaimsSet claims() {
        try {
            return JWTParser.parse(value).getJWTClaimsSet();
        } catch (ParseException | RuntimeException e) {
            return new JWTClaimsSet.Builder().build();
        }
    }

    @Override
    public Set<String> scope() {
        return Set.of();
    }

    @Override
    public long lifetimeMs() {
        JWTClaimsSet claims = claims();
        return claims.getExpirationTime() != null ? claims.getExpirationTime().getTime() : System.currentTimeMillis() + 60_000;
    }

    @Override
    public String principalName() {
        String subject = claims().getSubject();
        return subject == null ? "unknown" : subject;
    }

    @Override
    public Long startTimeMs() {
        JWTClaimsSet claims = claims();
        return claims.getIssueTime() != null ? claims.getIssueTime().getTime() : null;
    }

    @Override
    public String toString() {
        // Never the value: it is a credential.
        return "BearerToken[" + principalName() + "]";
    }
}
