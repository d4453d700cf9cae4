/**
 * Signing out in one tab signs out every tab of this service in the browser: the tab that signed
 * out (the service ended the session, `POST /api/auth/logout`) says so on a `BroadcastChannel`
 * (same origin only; nothing is stored), and every other tab of the pages, and the test tab,
 * goes to the sign-in page at once instead of at its next request.
 */

/** The channel's name; only pages of this origin can hear it. */
const CHANNEL = 'tablegraph-session';

/** What goes over the channel. */
interface SessionMessage {
  type: 'signed-out';
}

/** A channel, or null in a browser without `BroadcastChannel`. */
function open(): BroadcastChannel | null {
  return typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : null;
}

/** Tells the other tabs that this browser signed out. */
export function announceSignedOut(): void {
  const channel = open();
  if (!channel) return;
  channel.postMessage({ type: 'signed-out' } satisfies SessionMessage);
  channel.close();
}

/**
 * Calls `handler` when another tab of this browser signs out.
 * @returns what stops listening.
 */
export function whenSignedOutElsewhere(handler: () => void): () => void {
  const channel = open();
  if (!channel) return () => {};
  channel.onmessage = (event: MessageEvent<SessionMessage>) => {
    if (event.data?.type === 'signed-out') handler();
  };
  return () => channel.close();
}
