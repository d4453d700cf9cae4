'use strict';
/**
 * `npm run bench:cpu` (issue 8): where the CPU of one Q1 request goes, on each side. Runs
 * bench/run.js for Q1 only (one round of BENCH_SECONDS, default 14) with
 * `--perf-basic-prof-only-functions` on the service and the floor, records each side's process
 * with Linux `perf record` (cpu-clock, call graphs) for 8 s in the middle of its round, and
 * attributes every sample to the innermost frame of a known kind (node-postgres, Node's HTTP,
 * GC, pino, …; JavaScript frames by file, native frames by name, kernel frames by system call).
 * Prints, per kind, its share of the side's samples and that share of the round's measured
 * server CPU per request (µs). CPU samples, not wall-clock ones: a V8 `--cpu-prof` on this 2-core
 * machine counts the time a thread waits for a core after a socket write woke PostgreSQL or the
 * client, which made writes look several times dearer than they are.
 *
 * Needs `perf` (Debian's `linux-perf`) and the permission to record another process (root, or
 * `kernel.perf_event_paranoid` ≤ 1). Attribution follows inlining: a function V8 inlined into its
 * caller counts as the caller's kind, so kinds are approximate to a few percent.
 */
const { execFileSync, spawn } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const { tmpdir } = require('node:os');

/** Sampling frequency (Hz) and how long each side is recorded (s). */
const FREQUENCY = 499;
const RECORD_SECONDS = 8;

/** Kinds, tried in order on each frame from the innermost out; the first match names the sample. */
const KINDS = [
  ['GC', /Scavenger|MarkCompact|ConcurrentMarking|Sweeper|Heap::|MarkingVisitor|Evacuat|MinorMark/],
  ['JSON.stringify of the answer', /JsonStringifier/],
  ['logging (pino)', /pino|redact|sonic-boom/],
  ['metrics (prom-client)', /prom-client|metrics\.service/],
  ['body-parser', /body-parser|raw-body|iconv-lite|type-is/],
  ['node-postgres (send, receive, decode rows)', /node_modules\/(pg|pg-protocol|pg-types|pg-pool)\//],
  ['row shaping (ours)', /value-format|postgres\.dialect|shapeRows/],
  ['GraphQL execution (graphql-jit)', /graphql-jit|JS:\*?\S*(Handler|Resolver)\b/],
  ['key, app, rate limit (ours + lru-cache)', /api-keys|rate-limits|caller-resolver|lru-cache|apps\.service|versions\.service|audience/],
  ['request path (ours, other)', /dist\/src\//],
  ['floor handler', /bench\/floor\.js/],
  ['AsyncLocalStorage promise hooks', /async_hooks(?!.*callbackTrampoline)/],
  ['Node HTTP', /_http_|llhttp|Parser::/],
];
const OTHER = 'other (V8 builtins, Node streams and events)';

/** The kind of one `perf script` sample: its frames, innermost first. */
function kindOf(frames) {
  if (frames.length && frames[0].includes('[kernel.kallsyms]')) {
    const kernel = frames.filter((f) => f.includes('[kernel.kallsyms]')).join(' ');
    if (/tcp_sendmsg|sock_write|writev|sys_write/.test(kernel)) return 'kernel: socket writes';
    if (/tcp_recvmsg|sock_read|sys_read/.test(kernel)) return 'kernel: socket reads';
    if (/epoll/.test(kernel)) return 'kernel: epoll';
    return 'kernel: other';
  }
  for (const frame of frames) {
    for (const [kind, pattern] of KINDS) if (pattern.test(frame)) return kind;
  }
  return OTHER;
}

/** Samples per kind of a `perf record` file. */
function kinds(file) {
  const text = execFileSync('perf', ['script', '-i', file], { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  const counts = new Map();
  let total = 0;
  for (const sample of text.split('\n\n')) {
    const frames = sample.split('\n').slice(1).map((l) => l.trim()).filter(Boolean);
    if (!frames.length) continue;
    const kind = kindOf(frames);
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
    total++;
  }
  return { counts, total };
}

async function main() {
  execFileSync('perf', ['--version'], { stdio: 'ignore' });
  const dir = mkdtempSync(join(tmpdir(), 'tg-cpu-'));
  const recordings = [];
  const bench = spawn(process.execPath, [join(__dirname, 'run.js')], {
    env: {
      ...process.env,
      BENCH_WORKLOADS: 'q1',
      BENCH_OTHERS: '0',
      BENCH_ROUNDS: '1',
      BENCH_SECONDS: process.env.BENCH_SECONDS || '14',
      BENCH_NODE_ARGS: '--perf-basic-prof-only-functions',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  bench.stdout.on('data', (chunk) => {
    output += chunk;
    // "q1: floor (round 1 of 1, pid 123)…": record that process once its round has settled.
    for (const m of String(chunk).matchAll(/q1: (floor|service) \(round 1 of 1, pid (\d+)\)/g)) {
      const file = join(dir, `${m[1]}.data`);
      const perf = spawn('perf', ['record', '-F', String(FREQUENCY), '-g', '-o', file, '-p', m[2], '--', 'sleep', String(RECORD_SECONDS)], { stdio: 'ignore' });
      const map = `/tmp/perf-${m[2]}.map`; // V8 writes it for --perf-basic-prof-*; perf script reads it
      recordings.push(new Promise((resolve) => perf.on('close', () => resolve({ side: m[1], file, map }))));
    }
  });
  const code = await new Promise((resolve) => bench.on('close', resolve));
  if (code !== 0) throw new Error(`bench/run.js exited with ${code}`);
  // The Q1 row: "| label | floor req/s | ours | ratio | p (floor) | p (ours) | cpu floor / ours (x) | …".
  const row = output.split('\n').find((l) => l.startsWith('| Q1'));
  const cpu = row && /\| ([\d.]+) \/ ([\d.]+) \(/.exec(row);
  if (!cpu) throw new Error('bench/run.js printed no Q1 row with CPU per request');
  const cpuMs = { floor: Number(cpu[1]), service: Number(cpu[2]) };
  const sides = {};
  for (const { side, file, map } of await Promise.all(recordings)) {
    sides[side] = kinds(file);
    rmSync(map, { force: true });
  }
  rmSync(dir, { recursive: true, force: true });
  if (!sides.floor || !sides.service) throw new Error('perf recorded only one side (was a round too short?)');

  const names = [...new Set([...sides.floor.counts.keys(), ...sides.service.counts.keys()])];
  const share = (side, name) => (sides[side].counts.get(name) ?? 0) / sides[side].total;
  names.sort((a, b) => share('service', b) - share('service', a));
  console.log(`\n${row}\n`);
  console.log('| kind | floor % | floor µs/req | ours % | ours µs/req |');
  console.log('|---|---:|---:|---:|---:|');
  for (const name of names) {
    const f = share('floor', name);
    const s = share('service', name);
    const us = (x, ms) => Math.round(x * ms * 1000);
    console.log(`| ${name} | ${(100 * f).toFixed(1)} | ${us(f, cpuMs.floor)} | ${(100 * s).toFixed(1)} | ${us(s, cpuMs.service)} |`);
  }
  // The round's CPU per request is printed to 0.01 ms, so each µs figure is ± its share of 5 µs.
  console.log(`| all (${sides.floor.total} / ${sides.service.total} samples) | 100 | ${cpuMs.floor * 1000} | 100 | ${cpuMs.service * 1000} |`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
