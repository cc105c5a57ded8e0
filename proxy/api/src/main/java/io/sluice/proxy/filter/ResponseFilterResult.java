package io.sluice.proxy.filter;

import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;

/** What a response filter decided: forward {@link #header()}/{@link #message()}, or drop it, and maybe close. */
public interface ResponseFilterResult {

    ResponseHeaderData header();

    ApiMessage message();

    boolean drop();

    boolean closeConnection();
}
