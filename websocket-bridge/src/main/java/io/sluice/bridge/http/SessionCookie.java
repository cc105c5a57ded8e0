package io.sluice.bridge.http;

/**
 * The {@code sluice-token} cookie: the JWT itself, so that any node validates it with the same {@code auth.jwt}
 * settings and keeps no state. {@code HttpOnly} (page scripts cannot read it), {@code SameSite=Strict} (other sites'
 * pages cannot make a browser send it), {@code Secure} unless {@code http.cookieSecure: false}, and scoped to
 * {@code server.path}, which covers the stream, publish and session paths and nothing else of the site.
 */
final class SessionCookie {

    static final String NAME = "sluice-token";

    private SessionCookie() {
    }

    /**
     * @param maxAgeSeconds the token's remaining life; negative for a token without expiry, which gets a cookie that
     *                      lasts as long as the browser session
     */
    static String set(String token, String path, long maxAgeSeconds, boolean secure) {
        return NAME + "=" + token + "; Path=" + path + (maxAgeSeconds >= 0 ? "; Max-Age=" + maxAgeSeconds : "")
                + "; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "");
    }

    /** A cookie that replaces the session cookie and expires at once. */
    static String cleared(String path, boolean secure) {
        return NAME + "=; Path=" + path + "; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict"
                + (secure ? "; Secure" : "");
    }

    /**
     * Whether a browser stores the token unchanged: a cookie value is RFC 6265's cookie-octets, which every JWT
     * (base64url and dots) is.
     */
    static boolean fits(String token) {
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c < 0x21 || c > 0x7e || c == '"' || c == ',' || c == ';' || c == '\\') {
                return false;
            }
        }
        return true;
    }
}
