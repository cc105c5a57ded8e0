package io.sluice.app.bench.bridge;

/** How the bench names its keys and endpoints: key {@code k<i>} of the topic is endpoint {@code /<topic>/k<i>}. */
final class BenchTopic {

    private BenchTopic() {
    }

    static String key(int index) {
        return "k" + index;
    }

    static String endpoint(String topic, int index) {
        return "/" + topic + "/" + key(index);
    }
}
