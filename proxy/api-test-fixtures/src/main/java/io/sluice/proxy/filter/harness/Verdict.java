package io.sluice.proxy.filter.harness;

/** What a filter did with one message, as the proxy would carry it out. */
public enum Verdict {
    /** Passed on (possibly changed): towards the broker for a request, towards the client for a response. */
    FORWARDED,
    /** A request answered by the filter itself (short-circuit): nothing goes to the broker. */
    ANSWERED,
    /** Swallowed: the proxy sends nothing on and the client gets no answer to it. */
    DROPPED,
    /** The callback threw, its stage failed, or it completed with something the proxy refuses: the connection closes. */
    FAILED,
    /** The stage has not completed yet; later messages in the same direction would queue behind it. */
    PENDING
}
