package io.sluice.kms.conformance;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.kms.Kms;
import io.sluice.kms.WrappedKey;

/**
 * What {@link KmsConformance} needs from one provider and the KMS server it runs against: the provider, made the way
 * the proxy makes it (its {@code KmsService} from its config record, so metered), and an operator's hands on the
 * server (create, disable, enable and rotate a KEK). One fixture serves a whole test class; every test creates KEKs of
 * its own, so tests never share state.
 *
 * <p>A provider's module implements this in its tests against a server it did not write (or a stand-in speaking the
 * real protocol) and extends {@link KmsConformance} with it. Methods may throw anything: the test fails with it.
 */
public interface KmsFixture extends AutoCloseable {

    /** The provider's {@code provider} tag in {@code sluice.kms.calls} ({@code vault}, {@code aws}, ...). */
    String provider();

    /**
     * The KMS server's address, for the relay the suite puts in front of it to cut it off and slow it down; empty for
     * a KMS without a network (the in-process one), whose outage tests are then skipped.
     */
    Optional<InetSocketAddress> server();

    /**
     * A provider client calling the KMS at {@code address}, made from configuration by its {@code KmsService} with
     * {@code registry}, and giving up on one request after {@code requestTimeout}. The suite closes it.
     *
     * @param address the relay's address in front of {@link #server()}, or null for a KMS without a network
     */
    Kms connect(InetSocketAddress address, Duration requestTimeout, MeterRegistry registry) throws Exception;

    /** Creates a new KEK the provider may use, and returns its name as the proxy's configuration would give it. */
    String createKek() throws Exception;

    /**
     * A well-formed name of a KEK that does not exist, which the provider's credentials would be allowed to use if it
     * did (so the KMS says "unknown", not "forbidden").
     */
    String absentKek() throws Exception;

    /** Disables the KEK, or revokes the provider's access to it: what an operator does to stop its use. */
    void disable(String kek) throws Exception;

    /** Undoes {@link #disable}. */
    void enable(String kek) throws Exception;

    /** Rotates the KEK: new data keys are wrapped by new key material, and what the old material wrapped still unwraps. */
    void rotate(String kek) throws Exception;

    /** Which key material wrapped this key as the KMS reports it (a version, a key id): different after a rotation. */
    String wrappingKey(WrappedKey wrapped) throws Exception;

    /**
     * Empty when the KMS refuses new data keys and unwraps under a disabled KEK, as every real KMS does; otherwise why
     * this server does not (a limitation of the server, not of the provider), and the suite checks only what the
     * provider itself can enforce.
     */
    default Optional<String> disabledKeysStillServed() {
        return Optional.empty();
    }

    @Override
    default void close() throws Exception {
    }
}
