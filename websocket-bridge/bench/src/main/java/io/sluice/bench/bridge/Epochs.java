package io.sluice.bench.bridge;

/**
 * The bridge's epoch is {@code <topic id>-<partition>} (docs/bridge.md, Recovery): opaque to clients, but the bench,
 * which checks deliveries against the topic it wrote, reads the partition from it. A topic id may itself contain
 * {@code -} (URL-safe base64), so the partition is what follows the last one.
 */
final class Epochs {

    private Epochs() {
    }

    static int partition(String epoch) {
        int dash = epoch.lastIndexOf('-');
        if (dash < 0 || dash == epoch.length() - 1) {
            throw new IllegalArgumentException("not a bridge epoch (<topic id>-<partition>): " + epoch);
        }
        return Integer.parseInt(epoch.substring(dash + 1));
    }
}
