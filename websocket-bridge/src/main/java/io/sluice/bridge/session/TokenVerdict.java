package io.sluice.bridge.session;

import io.sluice.bridge.auth.Principal;

/**
 * What validating a token decided, for every transport alike: the principal, or that the node was too busy to tell
 * (the client retries the same token after a backoff), or why the token is refused (a message meant for the client).
 */
public record TokenVerdict(Principal principal, boolean busy, String refused) {
}
