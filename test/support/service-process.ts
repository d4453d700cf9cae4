import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** The built service (`dist/src/main.js`) running as its own process. */
export interface ServiceProcess {
  baseUrl: string;
  /** Everything the process wrote to standard output and error so far. */
  output(): string;
  /** Sends a signal (e.g. `SIGTERM`) without waiting. */
  signal(name: NodeJS.Signals): void;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/**
 * Starts `node dist/src/main.js` (built by `npm test` first) with `env` on a free loopback port:
 * the only way to run the service under another process time zone (`TZ`), which Jest's
 * per-file copy of `process.env` cannot change, and the only way to see its logs, signals and exit.
 * `NODE_ENV` is `test` unless `env` sets it. Resolves once it listens.
 * @throws when it exits first, or does not listen within 60 s (it is killed then).
 */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, '../../dist/src/main.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    // A service that does not start in time is killed, so a failed start leaves no process
    // behind (found orphaned after a loaded machine's slow start).
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start in 60 s:\n${output}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('listening on')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`service exited (${code}):\n${output}`));
    });
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    output: () => output,
    signal: (name) => child.kill(name),
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
