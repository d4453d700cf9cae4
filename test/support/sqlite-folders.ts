import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The app's own SQLite datasource folder under a service's `DATA_DIR`, created when missing:
 * `<dataDir>/datasources/<appId>/`, where `sqlite:<file>` URLs of that app are resolved (the
 * default `SQLITE_DATASOURCE_DIR` is `<DATA_DIR>/datasources`; README "SQLite datasources").
 */
export function sqliteAppFolder(dataDir: string, appId: string): string {
  const folder = join(dataDir, 'datasources', appId);
  mkdirSync(folder, { recursive: true });
  return folder;
}
