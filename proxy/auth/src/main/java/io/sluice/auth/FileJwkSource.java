package io.sluice.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.text.ParseException;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSelector;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.proc.SecurityContext;

/**
 * A JWKS file, re-read when its modification time or size changes so that keys can be rotated by replacing
 * the file. A file that turns unreadable or invalid after a good read keeps the last good keys (and says so
 * in the log once per change) rather than locking every client out.
 */
final class FileJwkSource implements JWKSource<SecurityContext> {

    private static final Logger LOG = LoggerFactory.getLogger(FileJwkSource.class);

    private record Stamp(FileTime modified, long size) {
    }

    private final Path file;
    private volatile JWKSet keys;
    private volatile Stamp seen;

    /** @throws IllegalArgumentException if the file cannot be read now */
    FileJwkSource(Path file) {
        this.file = file;
        try {
            this.seen = stamp();
            this.keys = load();
        } catch (IOException | ParseException e) {
            throw new IllegalArgumentException("'" + file + "' cannot be read as a JWKS: " + describe(e), e);
        }
    }

    @Override
    public List<JWK> get(JWKSelector selector, SecurityContext context) {
        return selector.select(fresh());
    }

    private JWKSet fresh() {
        Stamp now;
        try {
            now = stamp();
        } catch (IOException e) {
            return keys;
        }
        if (now.equals(seen)) {
            return keys;
        }
        synchronized (this) {
            if (!now.equals(seen)) {
                seen = now;
                try {
                    keys = load();
                    LOG.info("reloaded JWKS file {}: {} keys", file, keys.getKeys().size());
                } catch (IOException | ParseException e) {
                    LOG.warn("JWKS file {} changed but cannot be read ({}); keeping the previous keys", file, describe(e));
                }
            }
            return keys;
        }
    }

    private Stamp stamp() throws IOException {
        return new Stamp(Files.getLastModifiedTime(file), Files.size(file));
    }

    private JWKSet load() throws IOException, ParseException {
        return JWKSet.parse(Files.readString(file, StandardCharsets.UTF_8));
    }

    private static String describe(Exception e) {
        return e instanceof NoSuchFileException ? "it does not exist" : e.getMessage();
    }
}
