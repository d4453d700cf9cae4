import { mkdirSync, renameSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';

/**
 * Moves a SQLite fixture file into the app's own datasource folder
 * (`<DATA_DIR>/datasources/<appId>/`, the only place the service opens an app's SQLite files)
 * and returns the URL a builder then registers, `sqlite:<file>`. Other URLs pass unchanged.
 */
export function placeSqliteFile(dataDir: string, appId: string, url: string): string {
  if (!url.startsWith('sqlite:')) return url;
  const named = url.slice('sqlite:'.length);
  // Fixtures stage their files in `<DATA_DIR>/datasources/` and return `sqlite:<file>`.
  const from = isAbsolute(named) ? named : join(dataDir, 'datasources', named);
  const folder = join(dataDir, 'datasources', appId);
  mkdirSync(folder, { recursive: true });
  renameSync(from, join(folder, basename(from)));
  return `sqlite:${basename(from)}`;
}
