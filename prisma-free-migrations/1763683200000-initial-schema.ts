import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';

const id = { name: 'id', type: 'varchar', length: '36', isPrimary: true };
const at = (name: string, isNullable = false) => ({
  name,
  type: 'varchar',
  length: '32',
  isNullable,
});
/** `app_id`, and its foreign key: rows of an app go when the app goes. */
const appId = { name: 'app_id', type: 'varchar', length: '36' };
const appForeignKey = () =>
  new TableForeignKey({
    columnNames: ['app_id'],
    referencedTableName: 'app',
    referencedColumnNames: ['id'],
    onDelete: 'CASCADE',
  });

/**
 * The first metadata schema. Written with QueryRunner's Table API only, so the same file runs on
 * embedded SQLite and on PostgreSQL. Timestamps are ISO-8601 UTC text (one representation on both
 * stores); definitions of a version are one JSON document (docs/adr/0003).
 */
export class InitialSchema1763683200000 implements MigrationInterface {
  name = 'InitialSchema1763683200000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'account',
        columns: [
          id,
          { name: 'email', type: 'varchar', length: '320', isUnique: true },
          { name: 'password_hash', type: 'varchar', length: '200' },
          { name: 'role', type: 'varchar', length: '16' },
          at('created_at'),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'app',
        columns: [
          id,
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'address', type: 'varchar', length: '63', isUnique: true },
          { name: 'domain', type: 'varchar', length: '253', isNullable: true, isUnique: true },
          at('created_at'),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'app_version',
        columns: [
          id,
          appId,
          // 'main', or the id of the builder whose working version this is.
          { name: 'slot', type: 'varchar', length: '36' },
          { name: 'revision', type: 'integer' },
          { name: 'definition', type: 'text' },
          at('updated_at'),
        ],
        indices: [new TableIndex({ columnNames: ['app_id', 'slot'], isUnique: true })],
        foreignKeys: [appForeignKey()],
      }),
    );
    await q.createTable(
      new Table({
        name: 'datasource',
        columns: [
          id,
          appId,
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'type', type: 'varchar', length: '16' },
          { name: 'url_ciphertext', type: 'text' },
          at('created_at'),
        ],
        indices: [new TableIndex({ columnNames: ['app_id', 'name'], isUnique: true })],
        foreignKeys: [appForeignKey()],
      }),
    );
    await q.createTable(
      new Table({
        name: 'api_key',
        columns: [
          id,
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'prefix', type: 'varchar', length: '12' },
          { name: 'key_hash', type: 'varchar', length: '64', isUnique: true },
          { name: 'scope', type: 'text' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'rate_limit_per_minute', type: 'integer' },
          at('expires_at', true),
          at('last_used_at', true),
          at('revoked_at', true),
          at('created_at'),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['api_key', 'datasource', 'app_version', 'app', 'account'])
      await q.dropTable(t);
  }
}
