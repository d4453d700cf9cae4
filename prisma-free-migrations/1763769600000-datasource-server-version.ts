import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * The server version a datasource reported when it was registered: decides what its writes can
 * return in one statement (MariaDB ≥ 10.5 has INSERT … RETURNING, MySQL has none).
 */
export class DatasourceServerVersion1763769600000 implements MigrationInterface {
  name = 'DatasourceServerVersion1763769600000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn(
      'datasource',
      new TableColumn({ name: 'server_version', type: 'varchar', length: '200', isNullable: true }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('datasource', 'server_version');
  }
}
