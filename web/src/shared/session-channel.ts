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

/**
 * This tab's one channel, made on first use, or null in a browser without `BroadcastChannel`.
 * Sending and listening on the same object: a channel never hears its own messages, so the tab
 * that signs out is not told so a second time.
 */
let channel: BroadcastChannel | null | undefined;
function tabChannel(): BroadcastChannel | null {
  if (channel === undefined)
    channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : null;
  return channel;
}

/** Tells the other tabs that this browser signed out. */
export function announceSignedOut(): void {
  tabChannel()?.postMessage({ type: 'signed-out' } satisfies SessionMessage);
}

/**
 * Calls `handler` when another tab of this browser signs out.
 * @returns what stops listening.
 */
export function whenSignedOutElsewhere(handler: () => void): () => void {
  const listening = tabChannel();
  if (!listening) return () => {};
  const onMessage = (event: MessageEvent<SessionMessage>) => {
    if (event.data?.type === 'signed-out') handler();
  };
  listening.addEventListener('message', onMessage);
  return () => listening.removeEventListener('message', onMessage);
}
