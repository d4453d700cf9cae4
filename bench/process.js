'use strict';
/* eslint @typescript-eslint/no-require-imports: "off" -- a CommonJS module of the bench scripts */
/* global require, process, module, __dirname, setTimeout, clearTimeout, URL, fetch, performance, Buffer */
/**
 * What the bench scripts (bench/run.js, bench/soak.js, bench/attack.js) share: free ports, a
 * process's CPU, resident memory and open descriptors from /proc, an empty PostgreSQL database,
 * the built service started as `start:prod` starts it, a private Redis, the service's Prometheus
 * metrics, percentiles, HTTP requests from a chosen local address and slow sockets.
 */
const { spawn } = require('node:child_process');
const { createWriteStream, readdirSync, readFileSync } = require('node:fs');
const http = require('node:http');
const { connect, createServer } = require('node:net');
const { join } = require('node:path');

const TICK_MS = 10; // CLK_TCK = 100 on Linux

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** utime + stime of a process, in ms (0 once it is gone). */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** The process's resident memory now (VmRSS), in MB (0 once it is gone). */
function rssMb(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** A new, empty PostgreSQL database `name` on the server of `adminUrl`, and how to drop it. */
async function emptyPostgresDatabase(adminUrl, name) {
  const { Client } = require('pg');
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`,
        [name],
      );
      await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
      await admin.end();
    },
  };
}

/**
 * Starts the built service (dist/src/main.js) with the V8 flags of `start:prod`, then
 * BENCH_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`; a flag given there wins); resolves
 * when it listens. Keeps the last 20 lines of its output other than the access log (`tail`), to
 * show why it died if it does; BENCH_SERVICE_LOG=<file> appends all of it to a file.
 * @returns the child process, its output's tail and its base URL.
 */
async function startService(env) {
  const port = await freePort();
  const nodeArgs = (process.env.BENCH_NODE_ARGS || '').split(' ').filter(Boolean);
  const prodArgs = require('../package.json')
    .scripts['start:prod'].split(' ')
    .filter((a) => a.startsWith('--'));
  const child = spawn(process.execPath, [...prodArgs, ...nodeArgs, 'dist/src/main.js'], {
    cwd: join(__dirname, '..'),
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail = [];
  const keep = (d) => {
    tail.push(
      ...String(d)
        .split('\n')
        .filter((l) => l && !l.includes('"request completed"')),
    );
    tail.splice(0, Math.max(0, tail.length - 20));
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  if (process.env.BENCH_SERVICE_LOG) {
    const log = createWriteStream(process.env.BENCH_SERVICE_LOG, { flags: 'a' });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
  }
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('service did not start in 60 s')), 60_000);
    child.stdout.on('data', (d) => {
      if (String(d).includes('listening on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) =>
      reject(new Error(`service exited with ${code}: ${tail.join('\n')}`)),
    );
  });
  return { child, tail, base: `http://127.0.0.1:${port}` };
}

/** Open file descriptors of a process now (0 once it is gone). */
function openFds(pid) {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

/** The soft limit on open files of a process ("Max open files" of /proc/<pid>/limits), or null. */
function fdLimit(pid) {
  try {
    const m = /Max open files\s+(\d+|unlimited)/.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
    return m ? m[1] : null;
  } catch {
    return null;
  }
}

/** The `p`th percentile of `xs` (sorts a copy; 0 for none). */
function percentile(xs, p) {
  if (!xs.length) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** p50, p99 and max of `xs`, rounded to whole units. */
function latencies(xs) {
  return {
    p50: Math.round(percentile(xs, 50)),
    p99: Math.round(percentile(xs, 99)),
    max: Math.round(xs.length ? Math.max(...xs) : 0),
  };
}

/**
 * A private `redis-server` on a free loopback port without persistence (`--save ''
 * --appendonly no`), for a bench that pauses it (`kill -STOP`) without touching a shared Redis.
 * Resolves once it answers `PING`.
 * @returns its URL, the child process, `pause()`/`resume()` (SIGSTOP/SIGCONT) and `stop()`.
 */
async function startRedis() {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    const pong = await new Promise((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.setTimeout(500, () => s.destroy());
      s.on('connect', () => s.write('PING\r\n'));
      s.on('data', (d) => {
        resolve(String(d).startsWith('+PONG'));
        s.destroy();
      });
      s.on('error', () => resolve(false));
      s.on('close', () => resolve(false));
    });
    if (pong) break;
    if (Date.now() > deadline || child.exitCode !== null) {
      stop();
      throw new Error('redis-server did not answer PING in 10 s');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    child,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    stop,
  };
}

/**
 * The service's Prometheus metrics (`GET /metrics` with the `METRICS_TOKEN` bearer) as a map of
 * `name{labels}` (as printed) to value; empty when the route does not answer.
 */
async function scrapeMetrics(base, token) {
  const out = new Map();
  try {
    const res = await fetch(`${base}/metrics`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(10_000),
    });
    if (res.status !== 200) return out;
    for (const line of (await res.text()).split('\n')) {
      if (!line || line.startsWith('#')) continue;
      const cut = line.lastIndexOf(' ');
      out.set(line.slice(0, cut), Number(line.slice(cut + 1)));
    }
  } catch {
    /* no metrics */
  }
  return out;
}

/**
 * One HTTP request with node:http, without connection reuse, optionally from a chosen local
 * address (`localAddress`, e.g. 127.0.0.2 to be another client than 127.0.0.1 on loopback).
 * Never throws: a failure is `status` 0 with `error` (`timeout`, `reset`, `refused`, …).
 * @returns `{status, ms, text, error?}`.
 */
function httpRequest(
  url,
  { method = 'GET', headers = {}, body, localAddress, timeoutMs = 10_000 } = {},
) {
  const t0 = performance.now();
  return new Promise((resolve) => {
    let done = false;
    const finish = (r) => {
      if (done) return;
      done = true;
      resolve({ ...r, ms: performance.now() - t0 });
    };
    const req = http.request(url, { method, headers, localAddress, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        finish({ status: res.statusCode, text: Buffer.concat(chunks).toString() }),
      );
      res.on('error', () => finish({ status: 0, text: '', error: 'reset' }));
    });
    req.setTimeout(timeoutMs, () => {
      finish({ status: 0, text: '', error: 'timeout' });
      req.destroy();
    });
    req.on('error', (e) =>
      finish({
        status: 0,
        text: '',
        error:
          e.code === 'ECONNREFUSED'
            ? 'refused'
            : e.code === 'ECONNRESET'
              ? 'reset'
              : e.code || e.message,
      }),
    );
    req.end(body);
  });
}

/**
 * Opens `count` TCP sockets to `host:port` that each send `payload` (a request's head, never
 * finished) and then nothing, spread round-robin over `localAddresses`. Each socket's record says
 * when it connected and closed (ms after it was opened, null while open), the bytes it received
 * and whether it failed to connect. `closeAll()` destroys what is still open.
 * @returns `{sockets, closeAll}` once every socket has connected or failed.
 */
async function slowSockets({ host, port, count, localAddresses = [undefined], payload }) {
  const sockets = [];
  const opened = Array.from({ length: count }, (_, i) => {
    const record = {
      localAddress: localAddresses[i % localAddresses.length],
      openedAt: performance.now(),
      connected: false,
      closedAfter: null,
      received: '',
      error: null,
    };
    sockets.push(record);
    return new Promise((resolve) => {
      const s = connect({ host, port, localAddress: record.localAddress });
      record.socket = s;
      s.on('connect', () => {
        record.connected = true;
        s.write(payload);
        resolve();
      });
      s.on('data', (d) => (record.received += String(d).slice(0, 200)));
      s.on('error', (e) => {
        record.error = e.code || e.message;
        resolve();
      });
      s.on('close', () => {
        record.closedAfter = performance.now() - record.openedAt;
        resolve();
      });
    });
  });
  await Promise.all(opened);
  return {
    sockets,
    closeAll: () => sockets.forEach((r) => r.socket.destroy()),
  };
}

/** A REST caller of `base` with a session token; throws on a status ≥ 300 unless `soft`. */
function rest(base, token) {
  const call = async (method, path, body, soft = false) => {
    const res = await fetch(base + path, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = text;
    }
    if (soft) return { status: res.status, body: data };
    if (res.status >= 300)
      throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return data;
  };
  return call;
}

module.exports = {
  rest,
  TICK_MS,
  freePort,
  cpuMs,
  rssMb,
  openFds,
  fdLimit,
  percentile,
  latencies,
  emptyPostgresDatabase,
  startService,
  startRedis,
  scrapeMetrics,
  httpRequest,
  slowSockets,
};
