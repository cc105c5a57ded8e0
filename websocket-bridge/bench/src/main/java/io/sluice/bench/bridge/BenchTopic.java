package io.sluice.bench.bridge;

/**
 * How the bench names its keys and endpoints: key {@code k<i>} of the topic is endpoint {@code /<topic>/k<i>}, what
 * the fan-out sends and subscribers read. Publishing clients write to keys {@code p<i>} of the same topic, which no
 * subscriber reads, so the two directions of one run never mix.
 */
final class BenchTopic {

    /** The key prefix publishing clients write to; the bench token may publish to nothing else. */
    static final String PUBLISH_PREFIX = "p";

    private BenchTopic() {
    }

    static String key(int index) {
        return "k" + index;
    }

    static String endpoint(String topic, int index) {
        return "/" + topic + "/" + key(index);
    }

    static String publishKey(int index) {
        return PUBLISH_PREFIX + index;
    }

    static String publishEndpoint(String topic, int index) {
        return "/" + topic + "/" + publishKey(index);
    }
}
