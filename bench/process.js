'use strict';
/* eslint @typescript-eslint/no-require-imports: "off" -- a CommonJS module of the bench scripts */
/* global require, process, module, __dirname, setTimeout, clearTimeout, URL */
/**
 * What the bench scripts (bench/run.js, bench/soak.js) share: free ports, a process's CPU and
 * resident memory from /proc, an empty PostgreSQL database, and the built service started as
 * `start:prod` starts it.
 */
const { spawn } = require('node:child_process');
const { createWriteStream, readFileSync } = require('node:fs');
const { createServer } = require('node:net');
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

module.exports = { TICK_MS, freePort, cpuMs, rssMb, emptyPostgresDatabase, startService };
