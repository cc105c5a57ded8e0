package io.sluice.filter.jwt;

import io.sluice.auth.TokenAuthenticator;
import io.sluice.filter.records.RecordReaders;
import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.filter.FilterFactoryContext;

/**
 * JwtAuth: terminates SASL/OAUTHBEARER at the proxy, validates the client's JWT and enforces the permissions
 * it carries on every request (docs/jwt.md). Put it first in the chain, nearest the client, so that nothing
 * runs for a client before it has authenticated.
 *
 * <pre>
 * filterDefinitions:
 *   - name: jwt
 *     type: JwtAuth
 *     config:
 *       jwks: https://idp.example.com/.well-known/jwks.json
 *       issuer: https://idp.example.com/
 *       audience: kafka
 *       records:                 # optional: how much of the records it reads to check their keys
 *         maxRecordBytes: 8388608
 * </pre>
 *
 * The config is {@link JwtAuthConfig}: the shared {@link io.sluice.auth.JwtConfig} fields plus {@code records}.
 */
public final class JwtAuth implements FilterFactory<JwtAuthConfig, JwtAuth.Shared> {

    /** {@link io.sluice.proxy.filter.AuthenticatedPrincipal} attribute: the {@link io.sluice.auth.Grant}. */
    public static final String GRANT_ATTRIBUTE = "grant";
    /** Attribute: the {@link io.sluice.auth.Permissions}. */
    public static final String PERMISSIONS_ATTRIBUTE = "permissions";
    /** Attribute: the {@link io.sluice.auth.Identity} (subject, expiry, claims). */
    public static final String IDENTITY_ATTRIBUTE = "identity";

    /** What every connection of one filter definition shares. */
    record Shared(TokenAuthenticator authenticator, AuthMetrics metrics, RecordReaders records) {
    }

    @Override
    public Class<JwtAuthConfig> configType() {
        return JwtAuthConfig.class;
    }

    @Override
    public Shared initialize(FilterFactoryContext context, JwtAuthConfig config) {
        TokenAuthenticator authenticator = TokenAuthenticator.create(config.jwt());
        return new Shared(authenticator, new AuthMetrics(context.meterRegistry(), context.filterName()),
                new RecordReaders(config.records(), context.meterRegistry(), context.filterName()));
    }

    /** Until a client's token is accepted, the proxy holds its connection to the pre-authentication limits. */
    @Override
    public boolean authenticatesClients() {
        return true;
    }

    @Override
    public Filter createFilter(FilterFactoryContext context, Shared shared) {
        return new JwtAuthFilter(shared.authenticator(), shared.metrics(), shared.records());
    }

    @Override
    public void close(Shared shared) {
        shared.authenticator().close();
    }
}
