package io.sluice.filter.jwt.sasl;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The client's first (and, for OAUTHBEARER, only) SASL message, RFC 7628 section 3.1:
 * <pre>
 *   n,[a=authzid],^Aauth=Bearer &lt;token&gt;^A[key=value^A]...^A
 * </pre>
 * Kafka clients send exactly this; extensions (other key=value pairs, KIP-342) are kept but not acted upon.
 *
 * @param authorizationId the {@code a=} identity the client asks to act as, or null
 * @param token           the bearer token
 * @param extensions      other key=value pairs
 */
public record OAuthBearerClientMessage(String authorizationId, String token, Map<String, String> extensions) {

    private static final char SEPARATOR = '\u0001';
    private static final Pattern KEY = Pattern.compile("[A-Za-z]+");
    private static final Pattern VALUE = Pattern.compile("[\\x21-\\x7E \\t\\r\\n]*");
    private static final Pattern BEARER = Pattern.compile("(?i)bearer +([A-Za-z0-9\\-._~+/]+=*)");

    /** @throws IllegalArgumentException saying what is wrong, never repeating the token */
    public static OAuthBearerClientMessage parse(byte[] bytes) {
        String message = new String(bytes, StandardCharsets.UTF_8);
        if (!message.startsWith("n,")) {
            throw new IllegalArgumentException("the message must start with the GS2 header 'n,' (channel binding is not supported)");
        }
        int comma = message.indexOf(',', 2);
        if (comma < 0) {
            throw new IllegalArgumentException("the GS2 header is not terminated by ','");
        }
        String authzid = authorizationId(message.substring(2, comma));
        String rest = message.substring(comma + 1);
        if (rest.length() < 2 || rest.charAt(0) != SEPARATOR || !rest.endsWith("" + SEPARATOR + SEPARATOR)) {
            throw new IllegalArgumentException("the key/value pairs must be enclosed in ^A separators and end with ^A^A");
        }
        Map<String, String> pairs = new LinkedHashMap<>();
        for (String pair : rest.substring(1, rest.length() - 2).split(String.valueOf(SEPARATOR), -1)) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("a key/value pair has no key");
            }
            String key = pair.substring(0, eq);
            String value = pair.substring(eq + 1);
            if (!KEY.matcher(key).matches() || !VALUE.matcher(value).matches()) {
                throw new IllegalArgumentException("the key/value pair '" + (key.equals("auth") ? "auth" : key) + "' is malformed");
            }
            if (pairs.put(key, value) != null) {
                throw new IllegalArgumentException("the key '" + key + "' appears twice");
            }
        }
        String auth = pairs.remove("auth");
        if (auth == null) {
            throw new IllegalArgumentException("there is no auth=Bearer <token> pair");
        }
        var bearer = BEARER.matcher(auth);
        if (!bearer.matches()) {
            throw new IllegalArgumentException("the auth value is not 'Bearer <token>'");
        }
        return new OAuthBearerClientMessage(authzid, bearer.group(1), Map.copyOf(pairs));
    }

    private static String authorizationId(String gs2Part) {
        if (gs2Part.isEmpty()) {
            return null;
        }
        if (!gs2Part.startsWith("a=")) {
            throw new IllegalArgumentException("the GS2 header's second part must be empty or a=<authzid>");
        }
        // RFC 5801 saslname: ',' and '=' travel as =2C and =3D.
        String value = gs2Part.substring(2);
        if (value.replace("=2C", "").replace("=3D", "").contains("=")) {
            throw new IllegalArgumentException("the authorization id contains a bare '='");
        }
        return value.replace("=2C", ",").replace("=3D", "=");
    }

    @Override
    public String toString() {
        return "OAuthBearerClientMessage[authorizationId=" + authorizationId + ", token=******, extensions=" + extensions.keySet() + "]";
    }
}
