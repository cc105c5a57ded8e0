package io.sluice.kms.aws;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kms.KmsClient;

import io.sluice.testkit.MotoServer;
import io.sluice.testkit.PythonVenv;
import io.sluice.testkit.fixtures.PythonClients;

/**
 * One moto server for this module's test JVM, started on first use and stopped when the JVM exits, and an operator's
 * KMS client for it (the AWS SDK's own sync client: creating keys, aliases, disabling them is not the provider's
 * job). Without Python the tests are skipped, saying why (under CI they fail: .ci/run installs Python). Public, in this
 * module's test-jar, for kms/end-to-end.
 */
public final class Moto {

    private static MotoServer server;

    private Moto() {
    }

    public static synchronized MotoServer server() {
        if (server == null) {
            PythonVenv.Prepared venv = MotoServer.venv();
            if (venv.venv() == null) {
                PythonClients.unavailable("moto cannot be installed: " + venv.unavailable());
            }
            try {
                server = MotoServer.start(venv.venv());
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            MotoServer started = server;
            Runtime.getRuntime().addShutdownHook(new Thread(started::close, "moto-stop"));
        }
        return server;
    }

    /** The provider's config against moto at {@code endpoint}, with moto's static credentials. */
    static AwsKmsConfig config(String endpoint, Duration requestTimeout) {
        return new AwsKmsConfig(MotoServer.REGION, endpoint, new AwsCredentials(MotoServer.ACCESS_KEY_ID, MotoServer.SECRET_ACCESS_KEY, null),
                Duration.ofSeconds(2), requestTimeout);
    }

    /** An operator's client: the AWS SDK's sync client on the JDK's HttpURLConnection. */
    public static KmsClient operator() {
        return KmsClient.builder()
                .endpointOverride(URI.create(server().endpoint()))
                .region(Region.of(MotoServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(MotoServer.ACCESS_KEY_ID, MotoServer.SECRET_ACCESS_KEY)))
                .httpClient(UrlConnectionHttpClient.create())
                .build();
    }
}
