import { linkSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { metadataStoreOptions } from '../metadata-store';
import type { DatabaseIdentity } from './core/dialect';
import {
  identityKey,
  ownStoreRefusal,
  sameDatabase,
  sqliteFileKeys,
  STORE_FINGERPRINT,
  StoreGuardError,
} from './own-store';

const id = (keys: string[], storeCopy: string | null = null): DatabaseIdentity => ({
  keys,
  storeCopy,
});

describe('the service store fingerprint', () => {
  it('names tables the metadata migrations create (prisma-free-migrations/), in one schema', async () => {
    const store = new DataSource(metadataStoreOptions({ kind: 'sqlite', file: ':memory:' }));
    await store.initialize();
    try {
      const tables = (
        (await store.query("SELECT name FROM sqlite_master WHERE type = 'table'")) as {
          name: string;
        }[]
      ).map((t) => t.name);
      expect(tables).toEqual(expect.arrayContaining([...STORE_FINGERPRINT]));
    } finally {
      await store.destroy();
    }
  });
});

describe('ownStoreRefusal', () => {
  const store = id([identityKey('postgres', 'system', '7712', 'tg_meta')]);

  it('refuses a datasource sharing any key with the store, with a message saying what to change', () => {
    const refusal = ownStoreRefusal(
      'postgres',
      store,
      id([identityKey('postgres', 'started', 't0', 'tg_meta'), ...store.keys]),
    );
    expect(refusal).toBeInstanceOf(StoreGuardError);
    expect(refusal?.code).toBe('INVALID_INPUT');
    expect(refusal?.message).toMatch(/service's own metadata store/);
    expect(refusal?.message).toMatch(/Register a database of your app's own/);
  });

  it('accepts another database of the same server, and the same name on another server', () => {
    expect(
      ownStoreRefusal('postgres', store, id([identityKey('postgres', 'system', '7712', 'sales')])),
    ).toBeNull();
    expect(
      ownStoreRefusal(
        'postgres',
        store,
        id([identityKey('postgres', 'system', '9999', 'tg_meta')]),
      ),
    ).toBeNull();
  });

  it('never matches keys of another type, nor parts run together', () => {
    expect(identityKey('mysql', 'a', 'b')).not.toBe(identityKey('postgres', 'a', 'b'));
    expect(identityKey('postgres', 'a/b', 'c')).not.toBe(identityKey('postgres', 'a', 'b/c'));
    expect(sameDatabase(id([]), id([]))).toBe(false);
  });

  it('refuses a copy of the store on any server, naming the schema; also with no store identity', () => {
    const refusal = ownStoreRefusal('mysql', null, id(['x'], 'backup'));
    expect(refusal?.code).toBe('INVALID_INPUT');
    expect(refusal?.message).toBe(
      "This database holds the tables of a copy of the service's metadata store (account, " +
        'api_key, app_version in "backup"), with its accounts and key hashes; it can never be a ' +
        'datasource. Register a database without them',
    );
  });
});

describe('sqliteFileKeys', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tg-own-store-'));
    writeFileSync(join(dir, 'platform.db'), '');
    writeFileSync(join(dir, 'other.db'), '');
    symlinkSync(join(dir, 'platform.db'), join(dir, 'link.db'));
    linkSync(join(dir, 'platform.db'), join(dir, 'hard.db'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const keys = (name: string) => id(sqliteFileKeys(join(dir, name)));

  it('a symbolic link and a hard link are the file itself; another file is not', () => {
    expect(sameDatabase(keys('platform.db'), keys('link.db'))).toBe(true);
    expect(sameDatabase(keys('platform.db'), keys('hard.db'))).toBe(true);
    expect(sameDatabase(keys('platform.db'), keys('other.db'))).toBe(false);
  });

  it('a file that is not there has no keys', () => {
    expect(sqliteFileKeys(join(dir, 'missing.db'))).toEqual([]);
  });
});
