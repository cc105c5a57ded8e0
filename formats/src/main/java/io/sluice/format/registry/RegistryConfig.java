package io.sluice.format.registry;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

import io.sluice.config.TlsClientConfig;
import io.sluice.config.TlsValidator;

/**
 * Where the Confluent-compatible Schema Registry is and how far to trust it: the bridge's {@code schemaRegistry}
 * section (docs/bridge-registry.md).
 *
 * @param url              {@code http(s)://host:port} plus any base path, e.g. Apicurio's {@code /apis/ccompat/v7}
 * @param auth             basic or bearer credentials, or null for none
 * @param tls              for an {@code https} URL; null means the JVM's trust store and host name verification
 * @param timeout          for one request, from sending it to the last byte of the answer
 * @param maxResponseBytes an answer longer than this is cut off and refused (a schema is a few KiB; the bound keeps a
 *                         broken or hostile registry from filling the heap)
 * @param cache            how schemas and failures are remembered
 * @param lookups          how fast schema ids the node has not seen are asked for
 */
public record RegistryConfig(String url, RegistryAuth auth, TlsClientConfig tls, Duration timeout, long maxResponseBytes,
                             RegistryCacheConfig cache, RegistryLookupsConfig lookups) {

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
    public static final long DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
    /** Schemas with many references make long answers, but none near this: it only bounds a configuration mistake. */
    static final long MAX_MAX_RESPONSE_BYTES = 64L * 1024 * 1024;
    private static final Pattern SIZE = Pattern.compile("(\\d{1,12})\\s*(|B|KiB|MiB)");

    public RegistryConfig {
        timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
        cache = cache == null ? RegistryCacheConfig.defaults() : cache;
        lookups = lookups == null ? RegistryLookupsConfig.defaults() : lookups;
    }

    /** With the default lookup rate. */
    public RegistryConfig(String url, RegistryAuth auth, TlsClientConfig tls, Duration timeout, long maxResponseBytes,
                          RegistryCacheConfig cache) {
        this(url, auth, tls, timeout, maxResponseBytes, cache, null);
    }

    /** A registry at {@code url} without credentials or TLS settings, with every default. */
    public static RegistryConfig of(String url) {
        return new RegistryConfig(url, null, null, null, DEFAULT_MAX_RESPONSE_BYTES, null);
    }

    @JsonCreator
    static RegistryConfig fromYaml(@JsonProperty("url") String url,
                                   @JsonProperty("auth") RegistryAuth auth,
                                   @JsonProperty("tls") TlsClientConfig tls,
                                   @JsonProperty("timeout") Duration timeout,
                                   @JsonProperty("maxResponseBytes") String maxResponseBytes,
                                   @JsonProperty("cache") RegistryCacheConfig cache,
                                   @JsonProperty("lookups") RegistryLookupsConfig lookups) {
        return new RegistryConfig(url, auth, tls, timeout,
                maxResponseBytes == null ? DEFAULT_MAX_RESPONSE_BYTES : parseSize(maxResponseBytes), cache, lookups);
    }

    /** {@code 65536}, {@code 64KiB} or {@code 1MiB}. */
    static long parseSize(String text) {
        return parseSize(text, "maxResponseBytes");
    }

    static long parseSize(String text, String field) {
        Matcher m = SIZE.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException(field + ": '" + text + "' is not a size (expected bytes, or a number with KiB or MiB: 1048576, 1MiB)");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "KiB" -> n * 1024;
            case "MiB" -> n * 1024 * 1024;
            default -> n;
        };
    }

    /** The URL without a trailing slash, to which API paths ({@code /schemas/ids/1}) are appended. */
    public String baseUrl() {
        String u = url.strip();
        while (u.endsWith("/")) {
            u = u.substring(0, u.length() - 1);
        }
        return u;
    }

    /** Problems, each naming its field under {@code path} (the bridge uses {@code schemaRegistry}). */
    public void validate(List<String> problems, String path) {
        urlProblem().ifPresent(p -> problems.add(path + ".url: " + p));
        if (auth != null) {
            auth.validate(problems, path + ".auth");
        }
        if (tls != null) {
            new TlsValidator(problems).client(tls, path + ".tls");
            if (!tls.verifyHostname() && !tls.insecure()) {
                // The JDK's HTTP client always checks the host name; only a trust manager that trusts everything
                // (insecure) gets around it. Saying so beats silently verifying anyway.
                problems.add(path + ".tls.verifyHostname: false is not supported for the registry (its HTTP client always "
                        + "verifies host names); use a certificate that names the host, or insecure: true for experiments");
            }
            if (url != null && url.strip().toLowerCase(Locale.ROOT).startsWith("http:")) {
                problems.add(path + ".tls: is set but url is http://; use https:// or remove tls");
            }
        }
        if (timeout.isZero() || timeout.isNegative()) {
            problems.add(path + ".timeout: must be positive");
        }
        if (maxResponseBytes < 1024 || maxResponseBytes > MAX_MAX_RESPONSE_BYTES) {
            problems.add(path + ".maxResponseBytes: must be between 1KiB and 64MiB");
        }
        cache.validate(problems, path + ".cache");
        if (cache.maxBytes() < 2 * maxResponseBytes) {
            // A schema's text costs up to two bytes a character, and the longest answer must fit in the cache.
            problems.add(path + ".cache.maxBytes: must be at least twice maxResponseBytes (" + 2 * maxResponseBytes + ")");
        }
        lookups.validate(problems, path + ".lookups");
    }

    private java.util.Optional<String> urlProblem() {
        if (url == null || url.isBlank()) {
            return java.util.Optional.of("is required");
        }
        try {
            URI uri = new URI(baseUrl());
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https")) {
                return java.util.Optional.of("must start with http:// or https://");
            }
            if (uri.getHost() == null) {
                return java.util.Optional.of("has no host");
            }
            if (uri.getRawUserInfo() != null) {
                // It would end up in logs and error messages with the URL; credentials belong in auth.
                return java.util.Optional.of("must not carry credentials (user:password@); use auth");
            }
            if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
                return java.util.Optional.of("must not have a query or fragment");
            }
            return java.util.Optional.empty();
        }
        catch (URISyntaxException e) {
            return java.util.Optional.of("is not a valid URL (" + e.getReason() + ")");
        }
    }

    @Override
    public String toString() {
        // The generated toString would print auth, whose secrets mask themselves; this keeps the line short too.
        return "RegistryConfig[url=" + url + ", auth=" + (auth == null ? "none" : auth.kind()) + ", tls=" + (tls != null)
                + ", timeout=" + timeout + ", maxResponseBytes=" + maxResponseBytes + ", cache=" + cache + ", lookups=" + lookups + "]";
    }
}
