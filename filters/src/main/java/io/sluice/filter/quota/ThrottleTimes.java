package io.sluice.filter.quota;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.types.Schema;

/**
 * Raises the {@code throttle_time_ms} of a response: in, any response message and the time the proxy wants; out, the
 * response carrying the larger of that and what the broker set. About seventy of kafka-clients' generated response
 * classes have the field and no interface says so, so each class's accessors are looked up once (a {@link ClassValue})
 * and called through method handles; only throttled responses take this path. A version whose schema lacks the field
 * (Produce v0, say) is left alone: writing it there would fail the response.
 */
final class ThrottleTimes {

    private static final String FIELD = "throttle_time_ms";

    private record Accessors(MethodHandle getter, MethodHandle setter, boolean[] versions) {
        boolean has(short version) {
            return version >= 0 && version < versions.length && versions[version];
        }
    }

    private static final Accessors NONE = new Accessors(null, null, new boolean[0]);

    private static final ClassValue<Accessors> BY_CLASS = new ClassValue<>() {
        @Override
        protected Accessors computeValue(Class<?> type) {
            try {
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                MethodHandle getter = lookup.findVirtual(type, "throttleTimeMs", MethodType.methodType(int.class));
                MethodHandle setter = lookup.findVirtual(type, "setThrottleTimeMs", MethodType.methodType(type, int.class));
                Schema[] schemas = (Schema[]) type.getField("SCHEMAS").get(null);
                boolean[] versions = new boolean[schemas.length];
                for (int v = 0; v < schemas.length; v++) {
                    versions[v] = schemas[v] != null && schemas[v].get(FIELD) != null;
                }
                return new Accessors(getter, setter, versions);
            } catch (ReflectiveOperationException | ClassCastException e) {
                return NONE;
            }
        }
    };

    private ThrottleTimes() {
    }

    /**
     * Sets the response's throttle time to {@code millis} unless it is already higher.
     *
     * @return whether the response (at this version) has the field
     */
    static boolean raise(ApiMessage response, short version, int millis) {
        Accessors accessors = BY_CLASS.get(response.getClass());
        if (!accessors.has(version)) {
            return false;
        }
        try {
            int current = (int) accessors.getter().invoke(response);
            if (millis > current) {
                accessors.setter().invoke(response, millis);
            }
            return true;
        } catch (Throwable e) {
            throw new IllegalStateException("cannot set " + FIELD + " of " + response.getClass().getSimpleName(), e);
        }
    }

    /** The response's throttle time, 0 when it has none (for tests and logs). */
    static int of(ApiMessage response) {
        Accessors accessors = BY_CLASS.get(response.getClass());
        if (accessors.getter() == null) {
            return 0;
        }
        try {
            return (int) accessors.getter().invoke(response);
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }
}
