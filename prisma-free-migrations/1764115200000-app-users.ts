import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';

/**
 * App users (CONTRACT.md §4): accounts of one app's own users, with their roles and attributes
 * (JSON text), a disabled switch and a session epoch (raising it ends every session of the user).
 */
export class AppUsers1764115200000 implements MigrationInterface {
  name = 'AppUsers1764115200000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'app_user',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'app_id', type: 'varchar', length: '36' },
          { name: 'email', type: 'varchar', length: '320' },
          { name: 'password_hash', type: 'varchar', length: '200' },
          { name: 'roles', type: 'text' },
          { name: 'attributes', type: 'text' },
          { name: 'disabled', type: 'boolean', default: false },
          { name: 'session_epoch', type: 'integer', default: 0 },
          { name: 'created_at', type: 'varchar', length: '32' },
        ],
        indices: [new TableIndex({ columnNames: ['app_id', 'email'], isUnique: true })],
        foreignKeys: [
          new TableForeignKey({
            columnNames: ['app_id'],
            referencedTableName: 'app',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('app_user');
  }
}
