import { createServer, Server, Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { MssqlPool, parseMssqlUrl } from './pool';

/**
 * Issue 22 item 12: a SQL Server that accepts the connection and never answers holds the caller
 * no longer than the pool's acquire timeout, whatever `connectTimeout` the URL asks for. The
 * driver's timeout error names the connect timeout it waited (tedious: `Failed to connect to
 * <host>:<port> in <ms>ms`), so the tests assert that bound, never the wall time (timing belongs
 * in bench/).
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

  /** Opens a pool on the silent server; what it rejects with. */
  async function open(connectTimeout: number, acquireTimeoutMillis: number): Promise<unknown> {
    const config = parseMssqlUrl(
      `mssql://sa:pw@127.0.0.1:${port}/shop?encrypt=false&connectTimeout=${connectTimeout}`,
    );
    return MssqlPool.open({ ...config, pool: { ...config.pool, acquireTimeoutMillis } }).then(
      () => Promise.reject(new Error('MssqlPool.open answered a server that never speaks')),
      (error: unknown) => error,
    );
  }

  it('waits the acquire timeout, not a longer connectTimeout of the URL', async () => {
    expect(await open(60_000, 500)).toMatchObject({
      code: 'ETIMEOUT',
      message: `Failed to connect to 127.0.0.1:${port} in 500ms`,
    });
  }, 15_000);

  it("waits the URL's connectTimeout when it is the shorter", async () => {
    expect(await open(300, 500)).toMatchObject({
      code: 'ETIMEOUT',
      message: `Failed to connect to 127.0.0.1:${port} in 300ms`,
    });
  }, 15_000);
});
