package io.sluice.proxy.filter;

import java.security.cert.X509Certificate;
import java.util.Optional;

/**
 * The client side of a TLS connection as the proxy saw it.
 *
 * @param protocol         negotiated protocol, e.g. TLSv1.3
 * @param cipherSuite      negotiated cipher suite
 * @param sniHostname      the server name the client asked for, if it sent one
 * @param clientCertificate the client's certificate when mutual TLS was used
 */
public record ClientTlsContext(String protocol, String cipherSuite, Optional<String> sniHostname, Optional<X509Certificate> clientCertificate) {
}
