import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * The IANA time zone a datasource's dates and times without zone are read in when an SQL API
 * declares them zoned instants (README "SQL APIs"); null (datasources registered before) is UTC.
 */
export class DatasourceTimeZone1795910400000 implements MigrationInterface {
  name = 'DatasourceTimeZone1795910400000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn(
      'datasource',
      new TableColumn({ name: 'time_zone', type: 'varchar', length: '64', isNullable: true }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('datasource', 'time_zone');
  }
}
