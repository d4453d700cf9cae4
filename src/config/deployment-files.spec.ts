import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from './app-config';

/**
 * Issue 13, item 6: no Docker engine runs here, so `docker/Dockerfile` and `docker/compose.yaml`
 * are checked by reading them: every variable they set is one the config module reads, every
 * script and file they name exists, and the image is multi-stage, non-root, installs without dev
 * dependencies and checks `/health`.
 */

const ROOT = resolve(__dirname, '../..');
const scripts = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;

/** Every variable `loadConfig` reads, recorded through a proxy over a valid production env. */
function variablesTheConfigReads(): Set<string> {
  const read = new Set<string>();
  const dataDir = mkdtempSync(join(tmpdir(), 'tg-config-'));
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    DATA_DIR: dataDir,
    PLATFORM_SECRET: 'x'.repeat(40),
    ADMIN_PASSWORD: 'a-long-enough-password',
  };
  const recording = new Proxy(env, {
    get: (target, name: string) => {
      read.add(name);
      return target[name];
    },
  });
  try {
    loadConfig(recording, { demo: false });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  return read;
}

/** Dockerfile instructions, `\`-continued lines joined, comments dropped. */
function instructions(text: string): { op: string; args: string }[] {
  const joined = text.replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [op, ...rest] = line.split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(' ') };
    });
}

describe('docker/ deployment files', () => {
  const known = variablesTheConfigReads();
  const dockerfile = instructions(readFileSync(join(ROOT, 'docker/Dockerfile'), 'utf8'));
  const compose = parse(readFileSync(join(ROOT, 'docker/compose.yaml'), 'utf8')) as {
    services: Record<string, any>;
  };

  it('the config module reads the variables the deployment relies on', () => {
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'PLATFORM_SECRET', 'METRICS_TOKEN']) {
      expect(known).toContain(name);
    }
  });

  it('builds a multi-stage image that runs as a non-root user with production dependencies only', () => {
    const stages = dockerfile.filter((i) => i.op === 'FROM');
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const finalStage = dockerfile.slice(dockerfile.lastIndexOf(stages[stages.length - 1]));
    const user = finalStage.filter((i) => i.op === 'USER').pop();
    // The node image's own unprivileged user (never root, uid 0 or none at all).
    expect(user?.args.split(':')[0]).toBe('node');
    expect(dockerfile.some((i) => i.op === 'RUN' && /\bnpm ci --omit=dev\b/.test(i.args))).toBe(
      true,
    );
    // The final stage takes node_modules from that install, not from the build with dev tools.
    const modules = finalStage.find((i) => i.op === 'COPY' && /\/app\/node_modules/.test(i.args));
    const from = /--from=(\S+)/.exec(modules!.args)![1];
    const source = stages.find((s) => s.args.endsWith(` AS ${from}`))!;
    const sourceStage = dockerfile.slice(dockerfile.indexOf(source));
    const install = sourceStage.slice(1).find((i) => i.op === 'RUN' || i.op === 'FROM');
    expect(install?.args).toMatch(/npm ci --omit=dev/);
    const health = finalStage.find((i) => i.op === 'HEALTHCHECK');
    expect(health?.args).toContain('/health');
  });

  it('names only scripts, files and variables that exist', () => {
    for (const run of dockerfile.filter((i) => i.op === 'RUN')) {
      for (const [, script] of run.args.matchAll(/npm run ([\w:-]+)/g)) {
        expect(Object.keys(scripts)).toContain(script);
      }
    }
    for (const copy of dockerfile.filter((i) => i.op === 'COPY' && !/--from=/.test(i.args))) {
      const sources = copy.args.split(/\s+/).filter((a) => !a.startsWith('--'));
      for (const source of sources.slice(0, -1)) expect(existsSync(join(ROOT, source))).toBe(true);
    }
    const cmd = JSON.parse(dockerfile.filter((i) => i.op === 'CMD').pop()!.args) as string[];
    expect(`${cmd.join(' ')}`).toBe(scripts['start:prod']);
    for (const env of dockerfile.filter((i) => i.op === 'ENV')) {
      for (const [, name] of env.args.matchAll(/([A-Z_][A-Z0-9_]*)=/g))
        expect(known).toContain(name);
    }
  });

  it('composes the service with PostgreSQL metadata and Redis, sample datasources under a profile', () => {
    const { tablegraph, postgres, redis, mariadb, mssql } = compose.services;
    expect(
      existsSync(join(ROOT, 'docker', tablegraph.build.context, tablegraph.build.dockerfile)),
    ).toBe(true);
    for (const name of Object.keys(tablegraph.environment)) expect(known).toContain(name);
    expect(tablegraph.environment.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\//);
    expect(tablegraph.environment.REDIS_URL).toBe('redis://redis:6379');
    expect(tablegraph.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
    for (const always of [tablegraph, postgres, redis]) expect(always.profiles).toBeUndefined();
    for (const sample of [mariadb, mssql]) expect(sample.profiles).toEqual(['datasources']);
    // Secrets come from the caller's environment, never from the file.
    for (const secret of ['PLATFORM_SECRET', 'ADMIN_PASSWORD']) {
      expect(tablegraph.environment[secret]).toMatch(/^\$\{[A-Z_]+:\?/);
    }
  });
});
