package io.sluice.bridge.session;

import java.util.List;
import java.util.Objects;

import io.sluice.bridge.auth.Principal;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.bridge.protocol.RequestRefusedException;
import io.sluice.bridge.subscription.EndpointTable;
import io.sluice.format.mask.MaskViewer;
import io.sluice.format.mask.Masks;
import io.sluice.format.mask.ValueMask;

/**
 * The masks a subscription's records get for its principal (docs/masking.md): the {@code masking} rule of the topics
 * the subscription covers, less the fields the token may see whole. One mask applies to every record of a subscription,
 * so a prefix spanning topics masked differently for this token is refused, as for row filters.
 */
final class FieldMasks {

    private FieldMasks() {
    }

    /**
     * The mask for the topics {@code pattern} covers; null when none applies.
     *
     * @throws RequestRefusedException forbidden, when the covered topics are masked differently for this principal
     */
    static ValueMask forPattern(Principal principal, EndpointTable table, String pattern, Masks masks, Long id)
            throws RequestRefusedException {
        if (!masks.any()) {
            return null;
        }
        List<String> topics = table.cover(pattern).stream().map(EndpointTable.Cover::topic).distinct().toList();
        MaskViewer viewer = viewer(principal);
        ValueMask first = null;
        for (int i = 0; i < topics.size(); i++) {
            ValueMask mask = masks.forViewer(topics.get(i), viewer);
            if (i == 0) {
                first = mask;
            } else if (!Objects.equals(first, mask)) {
                throw new RequestRefusedException(ErrorCodes.FORBIDDEN, "the topics " + topics + " are masked differently for this token;"
                        + " subscribe to each topic's endpoints separately", id);
            }
        }
        return first;
    }

    private static MaskViewer viewer(Principal principal) {
        return new MaskViewer() {
            @Override
            public String principal() {
                return principal.subject();
            }

            @Override
            public boolean unmasked(String topic, String path) {
                return principal.unmasked(topic, path);
            }
        };
    }
}
