package io.sluice.format.mask;

/**
 * Who is reading, as masks need to know: the principal's name (for a rule's {@code unmaskPrincipals}) and its token's
 * unmask grants. The proxy and the bridge adapt their principals to this.
 */
public interface MaskViewer {

    /** A reader with no name and no grants: every mask applies. */
    MaskViewer NOBODY = new MaskViewer() {
        @Override
        public String principal() {
            return null;
        }

        @Override
        public boolean unmasked(String topic, String path) {
            return false;
        }
    };

    /** The principal's name, or null when there is none (an unauthenticated connection). */
    String principal();

    /** Whether a grant of the reader's shows {@code path} (a JSON Pointer into the value) of {@code topic} whole. */
    boolean unmasked(String topic, String path);
}
