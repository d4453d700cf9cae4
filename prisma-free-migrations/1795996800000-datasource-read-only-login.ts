import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * A datasource's optional read-only login (README "Datasources"): its user name and password,
 * encrypted as the URL is; null when none is set. Query-kind SQL APIs run with it.
 */
export class DatasourceReadOnlyLogin1795996800000 implements MigrationInterface {
  name = 'DatasourceReadOnlyLogin1795996800000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn(
      'datasource',
      new TableColumn({ name: 'read_only_login_ciphertext', type: 'text', isNullable: true }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('datasource', 'read_only_login_ciphertext');
  }
}
