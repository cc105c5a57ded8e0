package io.sluice.bridge.subscription;

/**
 * A subscribe that would add one distinct (filter, fields) pair too many to its endpoint on this node
 * ({@code filters.maxGroupsPerEndpoint}); nothing was subscribed.
 */
public final class TooManyGroupsException extends Exception {

    public TooManyGroupsException(String pattern, int limit) {
        super(pattern + " already has " + limit + " distinct filter and field-list combinations on this node (filters.maxGroupsPerEndpoint);"
                + " use one of those, or no filter");
    }
}
