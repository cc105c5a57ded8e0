package io.sluice.proxy.filter;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.types.Schema;

/**
 * Sees the size of the response to a forwarded request without its being decoded, and may raise the
 * {@code throttle_time_ms} it carries; attached with {@link RequestFilterResultBuilder#withResponseSizeHook}. For
 * filters that count bytes (a fetch quota, as a broker counts a fetch response's size): a {@link ResponseHook} makes the
 * proxy decode the response and encode it again, which on a Fetch costs more than all the forwarding around it.
 *
 * <p>Only for APIs whose response begins with {@code throttle_time_ms} (Fetch, ShareFetch and most others; not Produce
 * or ApiVersions): that field is raised in the bytes as they came from the broker. It runs on the connection's event
 * loop as the broker's response arrives, before any filter sees the response, so a filter that decodes it reads the
 * raised throttle. A response a filter made itself (a short-circuit) has no broker bytes and does not run it; neither
 * does a request that is dropped or whose connection ends first. A hook that throws closes the connection.</p>
 */
@FunctionalInterface
public interface ResponseSizeHook {

    /**
     * @param bytes the response as the broker sent it: its frame, without the four-byte length before it
     * @return the throttle time in milliseconds the response must carry at least; 0 (or less) leaves it as it is
     */
    int onResponseSize(int bytes);

    /** Whether {@code api}'s response at {@code version} begins with {@code throttle_time_ms}, so that it can take a size hook. */
    static boolean accepts(ApiKeys api, short version) {
        Schema[] schemas = api.messageType.responseSchemas();
        if (version < 0 || version >= schemas.length || schemas[version] == null) {
            return false;
        }
        Schema schema = schemas[version];
        return schema.numFields() > 0 && "throttle_time_ms".equals(schema.get(0).def.name);
    }
}
