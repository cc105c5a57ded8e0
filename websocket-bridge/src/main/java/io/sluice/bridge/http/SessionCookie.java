package io.sluice.bridge.http;

/**
 * The session cookie: the JWT itself, so that any node validates it with the same {@code auth.jwt} settings and keeps
 * no state. {@code HttpOnly} (page scripts cannot read it), {@code SameSite=Strict} (other sites' pages cannot make a
 * browser send it) and {@code Secure} unless {@code http.cookieSecure: false}.
 * <p>
 * Secure, it is {@code __Host-sluice-token} with {@code Path=/}: a browser takes a {@code __Host-} cookie only from
 * this host over https, without {@code Domain} and for the whole host, so a page of a sibling subdomain cannot plant
 * a more specific one (cookie tossing: its own token in the victim's browser). The prefix requires {@code Path=/}, so
 * the cookie reaches every path of the host. The unprefixed {@code sluice-token} of earlier versions is then not read
 * at all (it is exactly what a subdomain could plant); a browser still holding one gets 401 and exchanges its token
 * again. Without {@code Secure} (plain-http development) no prefix is possible: {@code sluice-token}, scoped to
 * {@code server.path}.
 */
final class SessionCookie {

    static final String NAME = "sluice-token";
    static final String SECURE_NAME = "__Host-" + NAME;

    private SessionCookie() {
    }

    /** The name the cookie has, and the only one read. */
    static String name(boolean secure) {
        return secure ? SECURE_NAME : NAME;
    }

    /**
     * @param maxAgeSeconds the token's remaining life; negative for a token without expiry, which gets a cookie that
     *                      lasts as long as the browser session
     */
    static String set(String token, String path, long maxAgeSeconds, boolean secure) {
        return name(secure) + "=" + token + "; Path=" + path(path, secure) + (maxAgeSeconds >= 0 ? "; Max-Age=" + maxAgeSeconds : "")
                + "; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "");
    }

    /** A cookie that replaces the session cookie and expires at once. */
    static String cleared(String path, boolean secure) {
        return name(secure) + "=; Path=" + path(path, secure) + "; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict"
                + (secure ? "; Secure" : "");
    }

    private static String path(String serverPath, boolean secure) {
        return secure ? "/" : serverPath;
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
