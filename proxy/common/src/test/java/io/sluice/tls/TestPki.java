package io.sluice.tls;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.util.Base64;

import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKey;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.PBEParameterSpec;

import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;

/** Certificates made for one test run and written to files the way an operator would provide them. */
public final class TestPki {

    public static final String STORE_PASSWORD = "store-secret";

    public final Path dir;
    public final X509Bundle ca;
    public final X509Bundle otherCa;
    public final X509Bundle server;
    public final X509Bundle wrongHostServer;
    public final X509Bundle client;

    public TestPki(Path dir) throws Exception {
        this.dir = dir;
        ca = new CertificateBuilder().subject("CN=Sluice Test CA").setIsCertificateAuthority(true).ecp256().buildSelfSigned();
        otherCa = new CertificateBuilder().subject("CN=Someone Else").setIsCertificateAuthority(true).ecp256().buildSelfSigned();
        server = new CertificateBuilder().subject("CN=localhost").addSanDnsName("localhost").addSanIpAddress("127.0.0.1")
                .addExtendedKeyUsageServerAuth().ecp256().buildIssuedBy(ca);
        wrongHostServer = new CertificateBuilder().subject("CN=broker.elsewhere.example").addSanDnsName("broker.elsewhere.example")
                .addExtendedKeyUsageServerAuth().ecp256().buildIssuedBy(ca);
        client = new CertificateBuilder().subject("CN=client").addExtendedKeyUsageClientAuth().ecp256().buildIssuedBy(ca);
    }

    public Path certificatePem(X509Bundle bundle, String name) throws Exception {
        return write(name + ".crt", bundle.getCertificatePathPEM());
    }

    public Path privateKeyPem(X509Bundle bundle, String name) throws Exception {
        return write(name + ".key", bundle.getPrivateKeyPEM());
    }

    public Path caPem(X509Bundle root, String name) throws Exception {
        return write(name + ".pem", root.getCertificatePEM());
    }

    /**
     * An encrypted PKCS#8 key ({@code BEGIN ENCRYPTED PRIVATE KEY}). Uses a PKCS#12 PBE scheme because Java 17 cannot
     * encode the parameters of the PBES2 schemes; decrypting goes through the same code either way.
     */
    public Path encryptedPrivateKeyPem(X509Bundle bundle, String name, String password) throws Exception {
        String algorithm = "PBEWithSHA1AndDESede";
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        SecretKey secret = SecretKeyFactory.getInstance(algorithm).generateSecret(new PBEKeySpec(password.toCharArray()));
        Cipher cipher = Cipher.getInstance(algorithm);
        cipher.init(Cipher.ENCRYPT_MODE, secret, new PBEParameterSpec(salt, 10_000));
        PrivateKey key = bundle.getKeyPair().getPrivate();
        EncryptedPrivateKeyInfo info = new EncryptedPrivateKeyInfo(cipher.getParameters(), cipher.doFinal(key.getEncoded()));
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(info.getEncoded());
        return write(name + ".key", "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + body + "\n-----END ENCRYPTED PRIVATE KEY-----\n");
    }

    public Path keyStore(X509Bundle bundle, String name, String type, String storePassword, String keyPassword) throws Exception {
        KeyStore store = KeyStore.getInstance(type);
        store.load(null, null);
        store.setKeyEntry(name, bundle.getKeyPair().getPrivate(), keyPassword.toCharArray(), bundle.getCertificatePath());
        return save(store, name + "." + type.toLowerCase(), storePassword);
    }

    public Path trustStore(X509Bundle root, String name, String type) throws Exception {
        KeyStore store = KeyStore.getInstance(type);
        store.load(null, null);
        if (root != null) {
            store.setCertificateEntry("ca", root.getCertificate());
        }
        return save(store, name + "." + type.toLowerCase(), STORE_PASSWORD);
    }

    private Path save(KeyStore store, String file, String password) throws Exception {
        Path path = dir.resolve(file);
        try (OutputStream out = Files.newOutputStream(path)) {
            store.store(out, password.toCharArray());
        }
        return path;
    }

    private Path write(String file, String content) throws Exception {
        return Files.writeString(dir.resolve(file), content, StandardCharsets.US_ASCII);
    }
}
