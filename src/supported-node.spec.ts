import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { satisfies } from 'semver';

/**
 * Node 20.19 is supported (package.json `engines`, README): no installed package may declare an
 * `engines.node` that excludes it, or `npm ci` warns EBADENGINE and the package may use what
 * Node 20 lacks (issue "fit the ecosystem", item 4). Overrides in package.json pin the ones that
 * did (`file-type`, `@whatwg-node/promise-helpers`; `nestjs-pino` 4.6 instead of 5).
 */

const SUPPORTED = '20.19.0';
const ROOT = join(__dirname, '..', 'node_modules');

/** Every package.json under node_modules (nested node_modules too), as [path, engines.node]. */
function installedEngines(folder: string, out: [string, string][] = []): [string, string][] {
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return out;
  }
  for (const entry of entries) {
    if (entry.startsWith('.')) continue;
    const dir = join(folder, entry);
    if (entry.startsWith('@')) {
      installedEngines(dir, out);
      continue;
    }
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        engines?: { node?: unknown };
      };
      if (typeof pkg.engines?.node === 'string') out.push([dir, pkg.engines.node]);
    } catch {
      /* not a package */
    }
    installedEngines(join(dir, 'node_modules'), out);
  }
  return out;
}

describe(`installed packages run on Node ${SUPPORTED}`, () => {
  it('declare no engines.node range that excludes it', () => {
    const engines = installedEngines(ROOT);
    expect(engines.length).toBeGreaterThan(50);
    const excluding = engines
      .filter(([, range]) => !satisfies(SUPPORTED, range, { includePrerelease: true }))
      .map(([dir, range]) => `${dir.slice(ROOT.length + 1)} (${range})`);
    expect(excluding).toEqual([]);
  });
});

describe('the V8 flags the service starts with', () => {
  it('are accepted by the Node that runs the tests (an unknown V8 flag stops node at start)', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const flags = pkg.scripts['start:prod'].split(' ').filter((a) => a.startsWith('--'));
    expect(flags).toEqual(['--max-semi-space-size=32', '--heap-growing-percent=50']);
    expect(pkg.scripts.start).toContain(` ${flags.join(' ')} dist/src/main.js`);
    const run = spawnSync(process.execPath, [...flags, '-e', 'process.stdout.write("ok")'], {
      encoding: 'utf8',
    });
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
      status: 0,
      stdout: 'ok',
      stderr: '',
    });
  });
});
