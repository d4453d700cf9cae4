import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import { METADATA_MIGRATIONS } from '../prisma-free-migrations';
import { ApiKeyEntity } from './api-keys/entities/api-key.entity';
import { AppUserEntity } from './app-access/entities/app-user.entity';
import type { MetadataStoreConfig } from './config/app-config';
import { DatasourceEntity } from './data-model/entities/datasource.entity';
import { AccountEntity } from './platform/entities/account.entity';
import { AppVersionEntity } from './platform/entities/app-version.entity';
import { AppEntity } from './platform/entities/app.entity';

/** Every metadata entity. */
export const METADATA_ENTITIES = [
  AccountEntity,
  AppEntity,
  AppVersionEntity,
  DatasourceEntity,
  ApiKeyEntity,
  AppUserEntity,
];

/**
 * TypeORM options of the metadata store: embedded SQLite (WAL) or PostgreSQL. Migrations run at
 * start; `synchronize` stays off (schema changes only through `prisma-free-migrations/`).
 */
export function metadataStoreOptions(store: MetadataStoreConfig): DataSourceOptions {
  const common = {
    entities: METADATA_ENTITIES,
    migrations: METADATA_MIGRATIONS,
    migrationsRun: true,
    synchronize: false,
    logging: false,
  } as const;
  if (store.kind === 'postgres')
    return { ...common, type: 'postgres', url: store.url, poolSize: 10 };
  if (store.file !== ':memory:') mkdirSync(dirname(store.file), { recursive: true });
  return {
    ...common,
    type: 'better-sqlite3',
    database: store.file,
    enableWAL: store.file !== ':memory:',
  };
}
