package io.sluice.kms.gcp;

import java.time.Duration;

/**
 * Configuration of the Google Cloud KMS provider ({@code kms: GcpKmsService}). A KEK name RecordEncryption gives
 * ({@code kek:}) is a CryptoKey's resource name ({@code projects/P/locations/L/keyRings/R/cryptoKeys/K}), or, with
 * {@code keyRing} set, the CryptoKey's id in that key ring.
 *
 * <pre>{@code
 * kmsConfig:
 *   keyRing: projects/my-project/locations/europe-west1/keyRings/sluice   # optional
 *   endpoint: cloudkms.googleapis.com:443                                # optional: e.g. a private endpoint
 *   credentialsFile: /var/secrets/google/key.json                        # absent: application default credentials
 *   requestTimeout: 10s
 * }</pre>
 *
 * @param keyRing the key ring that short KEK names are in; absent: KEK names are full CryptoKey resource names
 * @param endpoint the Cloud KMS endpoint, {@code host:port} (https) or a full {@code http(s)://host:port} (the tests'
 *        stand-in); absent: {@code cloudkms.googleapis.com:443}
 * @param credentialsFile a service account key or external account (workload identity federation) JSON file; absent:
 *        application default credentials (GOOGLE_APPLICATION_CREDENTIALS, GKE workload identity, the metadata server)
 * @param requestTimeout one call (default 10s); the client does not retry, the key cache does
 */
public record GcpKmsConfig(String keyRing, String endpoint, String credentialsFile, Duration requestTimeout) {

    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);
    public static final String DEFAULT_ENDPOINT = "cloudkms.googleapis.com:443";

    public GcpKmsConfig {
        requestTimeout = requestTimeout == null ? DEFAULT_REQUEST_TIMEOUT : requestTimeout;
    }
}
