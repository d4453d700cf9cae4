import { createServer, Server, Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { MssqlPool, parseMssqlUrl } from './pool';

/**
 * Issue 22 item 12: a SQL Server that accepts the connection and never answers holds the caller
 * no longer than the pool's acquire timeout, whatever `connectTimeout` the URL asks for.
 */
describe('MssqlPool connect timeout', () => {
  let server: Server;
  let port: number;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((done) => server.close(done));
  });

  it('is bounded by the acquire timeout', async () => {
    const config = parseMssqlUrl(
      `mssql://sa:pw@127.0.0.1:${port}/shop?encrypt=false&connectTimeout=60000`,
    );
    const started = Date.now();
    await expect(
      MssqlPool.open({ ...config, pool: { ...config.pool, acquireTimeoutMillis: 500 } }),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(3_000);
  }, 15_000);
});
