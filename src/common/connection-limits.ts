import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpServerConfig } from '../config/app-config';
import { addressBucket } from './http-request';

/** How often Node looks for requests past their headers or request timeout, in milliseconds. */
export const CONNECTIONS_CHECKING_INTERVAL_MS = 1_000;

/**
 * Bounds what connections may hold on the Node HTTP server (issue 22 item 7), so slow or idle
 * sockets cannot use up the process's descriptors and starve `/health` and everyone else:
 * - `headersTimeout` and `requestTimeout`: a request whose headers, or whole body, do not arrive in
 *   time is answered 408 and its socket closed. Node checks every `connectionsCheckingInterval`
 *   (30 s by default, read when the server starts listening); it is set to
 *   {@link CONNECTIONS_CHECKING_INTERVAL_MS} so a slow socket is closed about when its time is up,
 *   not up to 30 s later (bench:attack class 22.7 measured 28 s with a 10 s headers timeout);
 * - `maxConnections`: sockets beyond it are closed by Node as they are accepted;
 * - a per-address cap: a socket whose address (an IPv6 one counted by its /64, see
 *   {@link addressBucket}) already holds `maxConnectionsPerAddress` open sockets is closed at once,
 *   before any byte is read. 0 turns the cap off.
 *
 * Call before the server listens.
 */
export function limitConnections(server: Server, limits: HttpServerConfig): void {
  // Node reads this property when the server starts listening (lib/_http_server.js,
  // setupConnectionsTracking); @types/node declares it only as a createServer option.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    CONNECTIONS_CHECKING_INTERVAL_MS;
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.maxConnections = limits.maxConnections;
  if (limits.maxConnectionsPerAddress <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = addressBucket(socket.remoteAddress ?? 'unknown');
    const count = open.get(address) ?? 0;
    if (count >= limits.maxConnectionsPerAddress) {
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
