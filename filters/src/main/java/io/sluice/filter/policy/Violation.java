package io.sluice.filter.policy;

import org.apache.kafka.common.protocol.Errors;

import io.sluice.filter.records.ProduceRefusal;

/**
 * One request, partition, topic or config resource that breaks a policy.
 *
 * @param policy  which policy
 * @param mode    whether it is refused or only reported
 * @param error   the Kafka error it is refused with
 * @param message for the client and the log: {@code policy <id> (rule <name>): <what is wrong>}; quotes client-supplied
 *                names only through {@link io.sluice.auth.Untrusted}, never record contents
 * @param record  the record that broke it, for Produce's {@code record_errors}; null for batch- and request-level ones
 */
record Violation(PolicyId policy, PolicyMode mode, Errors error, String message, ProduceRefusal.RecordError record) {
}
