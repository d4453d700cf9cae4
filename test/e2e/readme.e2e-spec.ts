import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import {
  Chunk,
  chunksOf,
  fencedBlocks,
  matchesAnswer,
  matchesJson,
} from '../support/readme-examples';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { SERVICE_URLS } from '../support/services';

/**
 * Issue 13, item 7: every command and example of the README runs here, as a reader would paste
 * it, against the built service started as the README starts it, and prints what the README
 * says (see test/support/readme-examples.ts for how blocks become sessions and answers). The one
 * block not run is `npm test`: it is what runs this suite.
 */

const ROOT = join(__dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
/** Blocks the suite does not run, by their whole text. */
const NOT_RUN = new Set(['npm test']);
/** `npm start` with the README's variables before it. */
const START = /^((?:[A-Z_]+=\S+\s+)*)(?:npm ci && )?npm start$/;

interface Session {
  /** README line of the start command. */
  line: number;
  env: Record<string, string>;
  chunks: Chunk[];
  /** The quick start's printed banner (a ```text block), `…` and `<…>` standing for any text. */
  banner?: string[];
}

/** The README as sessions, each from one `npm start` to the next. */
function sessions(): Session[] {
  const all: Session[] = [];
  let previous: { lang: string; chunks: Chunk[] } | null = null;
  for (const block of fencedBlocks(README)) {
    const text = block.lines.join('\n').trim();
    const current = all[all.length - 1];
    if (block.lang === 'sh') {
      if (NOT_RUN.has(text)) {
        previous = null;
        continue;
      }
      const start = START.exec(text);
      if (start) {
        const env = Object.fromEntries(
          start[1]
            .trim()
            .split(/\s+/)
            .filter(Boolean)
            .map((pair) => pair.split('=') as [string, string]),
        );
        all.push({ line: block.line, env, chunks: [] });
        previous = null;
        continue;
      }
      if (!current) throw new Error(`README line ${block.line}: a command before any npm start`);
      const chunks = chunksOf(block);
      current.chunks.push(...chunks);
      previous = { lang: 'sh', chunks };
    } else if (block.lang === 'json' && previous?.chunks.length) {
      previous.chunks[previous.chunks.length - 1].expectedJson = JSON.parse(text);
      previous = null;
    } else if (block.lang === 'text' && text.startsWith('First administrator') && current) {
      current.banner = block.lines.map((l) => l.replace(/<[^>]+>/g, '…'));
      previous = null;
    } else {
      previous = null;
    }
  }
  return all;
}

/** Databases the README's examples create on the local servers, dropped before and after. */
async function dropExampleDatabases(): Promise<void> {
  const admin = new Client({ connectionString: SERVICE_URLS.postgres });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS shop WITH (FORCE)');
  await admin.end();
  spawnSync('mysql', ['-h', '127.0.0.1', '-u', 'root', '-e', 'DROP DATABASE IF EXISTS shop']);
}

describe('README examples, run as written', () => {
  const plan = sessions();
  let service: ServiceProcess | null = null;
  let dataDir: string | null = null;

  beforeAll(dropExampleDatabases);
  afterEach(async () => {
    await service?.stop();
    service = null;
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    dataDir = null;
  });
  afterAll(dropExampleDatabases);

  it('holds sessions with commands and answers to check', () => {
    expect(plan.length).toBeGreaterThanOrEqual(3);
    expect(plan.flatMap((s) => s.chunks).filter((c) => c.expected.length).length).toBeGreaterThan(
      30,
    );
  });

  for (const session of plan) {
    it(`session started at README line ${session.line} prints what the README says`, async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'tg-readme-'));
      service = await startServiceProcess({
        ...session.env,
        DATA_DIR: dataDir,
        // `npm start` turns the demo on by default; the process is started directly here.
        DEMO: '1',
      });
      const base = service.baseUrl;
      const key = await demoKey(service);
      const substitute = (text: string) =>
        text
          .replaceAll('http://127.0.0.1:3000', base)
          .replaceAll('localhost:3000', base.replace('http://', ''))
          .replaceAll('KEY=tgk_…', `KEY=${key}`)
          .replaceAll(session.env.DATA_DIR ?? '\0', dataDir!);
      const problems: string[] = [];
      const chunks = [...session.chunks];
      if (session.banner) {
        const banner = service.output().slice(service.output().indexOf('First administrator'));
        const expected = session.banner.map(substitute);
        if (!matchesAnswer(banner, expected)) {
          problems.push(`line ${session.line}: the start printed\n${banner}`);
        }
        // The quick start's "Try it" command, as the service printed it.
        const tryIt = banner.split('\n').find((l) => l.startsWith('curl '));
        chunks.unshift({ line: session.line, script: tryIt ?? 'false', expected: [] });
      }
      const outputs = runSession(chunks.map((c) => substitute(c.script)));
      chunks.forEach((chunk, i) => {
        const actual = outputs[i] ?? '';
        if (actual.includes('INTERNAL_SERVER_ERROR') || /command not found/.test(actual)) {
          problems.push(`line ${chunk.line}: failed\n${actual}`);
        }
        // A command whose answer the README does not show must print nothing (an assignment).
        if (
          !chunk.expected.length &&
          chunk.expectedJson === undefined &&
          !(session.banner && i === 0) &&
          actual.trim()
        ) {
          problems.push(`line ${chunk.line}: printed what the README does not show\n${actual}`);
        }
        if (chunk.expected.length && !matchesAnswer(actual, chunk.expected.map(substitute))) {
          problems.push(
            `line ${chunk.line}: expected\n${chunk.expected.join('\n')}\ngot\n${actual}`,
          );
        }
        if (chunk.expectedJson !== undefined) {
          let parsed: unknown = null;
          try {
            parsed = JSON.parse(actual);
          } catch {
            /* compared below */
          }
          if (!matchesJson(parsed, chunk.expectedJson)) {
            problems.push(`line ${chunk.line}: expected the JSON block below it, got\n${actual}`);
          }
        }
      });
      if (session.banner) {
        expect(JSON.parse(outputs[0]).data.getOrders).toHaveLength(3);
      }
      expect(problems).toEqual([]);
    });
  }
});

/** The demo key the service printed at start (waits for the line, at most 10 s). */
async function demoKey(service: ServiceProcess): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const found = /Demo API key \(shown once\): (tgk_\S+)/.exec(service.output());
    if (found) return found[1];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no demo key printed:\n${service.output()}`);
}

/**
 * Runs the chunks in one bash session (variables and functions carry over, as in a terminal),
 * each after a marker; returns each chunk's output (standard output and error).
 */
function runSession(scripts: string[]): string[] {
  const marker = '@@README-CHUNK@@';
  const script = ['exec 2>&1', ...scripts.map((s, i) => `printf '\\n${marker}${i}\\n'\n${s}`)];
  const run = spawnSync('bash', ['-c', script.join('\n')], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      LANG: 'C.UTF-8',
      // This machine's own npm settings are not the README's: npx would print warnings about them.
      NPM_CONFIG_USERCONFIG: '/dev/null',
      NPM_CONFIG_UPDATE_NOTIFIER: 'false',
    },
  });
  const outputs: string[] = [];
  const parts = (run.stdout ?? '').split(new RegExp(`\\n${marker}(\\d+)\\n`));
  for (let i = 1; i < parts.length; i += 2) outputs[Number(parts[i])] = parts[i + 1];
  return outputs;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

describe('README links', () => {
  it('stay inside the repository and reach their headings and files', () => {
    const headings = new Set(
      [...README.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1].replace(/`/g, ''))),
    );
    const problems: string[] = [];
    for (const [, target] of README.matchAll(/\]\(([^)]+)\)/g)) {
      if (/^[a-z]+:/i.test(target) || target.startsWith('..') || target.startsWith('/')) {
        problems.push(`${target}: leaves the repository`);
      } else if (target.startsWith('#')) {
        if (!headings.has(target.slice(1))) problems.push(`${target}: no such heading`);
      } else if (!existsSync(join(ROOT, target.split('#')[0]))) {
        problems.push(`${target}: no such file`);
      }
    }
    expect(problems).toEqual([]);
  });
});
