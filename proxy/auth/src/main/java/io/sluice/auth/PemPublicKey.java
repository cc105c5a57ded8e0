package io.sluice.auth;

import java.io.ByteArrayInputStream;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.cert.CertificateFactory;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads one public key from PEM text: a {@code PUBLIC KEY} block (RSA or EC, X.509 SubjectPublicKeyInfo) or a
 * {@code CERTIFICATE}. Done with the JDK alone: nimbus's own PEM reader needs Bouncy Castle.
 */
final class PemPublicKey {

    private static final Pattern BLOCK = Pattern.compile("-----BEGIN ([A-Z ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");

    private PemPublicKey() {
    }

    static PublicKey parse(String pem) {
        Matcher m = BLOCK.matcher(pem);
        while (m.find()) {
            String type = m.group(1);
            byte[] der = Base64.getMimeDecoder().decode(m.group(2));
            try {
                if (type.equals("PUBLIC KEY")) {
                    return publicKey(der);
                }
                if (type.equals("CERTIFICATE")) {
                    return CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der)).getPublicKey();
                }
            } catch (GeneralSecurityException e) {
                throw new IllegalArgumentException("the " + type + " block cannot be read: " + e.getMessage(), e);
            }
        }
        throw new IllegalArgumentException("no PUBLIC KEY or CERTIFICATE block found (an RSA PUBLIC KEY block must be converted to PUBLIC KEY)");
    }

    private static PublicKey publicKey(byte[] der) throws GeneralSecurityException {
        GeneralSecurityException last = null;
        for (String algorithm : new String[] {"RSA", "EC"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePublic(new X509EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                last = e;
            }
        }
        throw new GeneralSecurityException("neither an RSA nor an EC public key", last);
    }
}
