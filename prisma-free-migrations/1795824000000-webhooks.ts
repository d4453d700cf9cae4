import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';

/**
 * Webhooks (issue 28 item 1, README "Webhooks"). The definitions live in the version document;
 * these tables hold what is not versioned:
 * - `webhook_endpoint`: per webhook id, its signing secret sealed by `SecretBoxService` (and the
 *   previous one until `previous_expires_at`, during a rotation), and the delivery state: since
 *   when deliveries keep failing, and why it was suspended (a 410, or three days of failures).
 * - `webhook_delivery`: the outbox and delivery log. One row per event and webhook, written after
 *   the request's transaction committed; `seq` orders a row key's events (FIFO per row),
 *   `payload` is the exact body signed and sent on every attempt.
 */
export class Webhooks1795824000000 implements MigrationInterface {
  name = 'Webhooks1795824000000';

  async up(q: QueryRunner): Promise<void> {
    const appForeignKey = new TableForeignKey({
      columnNames: ['app_id'],
      referencedTableName: 'app',
      referencedColumnNames: ['id'],
      onDelete: 'CASCADE',
    });
    await q.createTable(
      new Table({
        name: 'webhook_endpoint',
        columns: [
          { name: 'webhook_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'app_id', type: 'varchar', length: '36' },
          { name: 'secret_sealed', type: 'text' },
          { name: 'previous_secret_sealed', type: 'text', isNullable: true },
          { name: 'previous_expires_at', type: 'varchar', length: '32', isNullable: true },
          { name: 'failing_since', type: 'varchar', length: '32', isNullable: true },
          { name: 'suspended_at', type: 'varchar', length: '32', isNullable: true },
          { name: 'suspended_reason', type: 'varchar', length: '300', isNullable: true },
          { name: 'created_at', type: 'varchar', length: '32' },
        ],
        indices: [new TableIndex({ columnNames: ['app_id'] })],
        foreignKeys: [appForeignKey],
      }),
    );
    await q.createTable(
      new Table({
        name: 'webhook_delivery',
        columns: [
          {
            name: 'seq',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'id', type: 'varchar', length: '40', isUnique: true },
          { name: 'app_id', type: 'varchar', length: '36' },
          { name: 'webhook_id', type: 'varchar', length: '36' },
          { name: 'event_type', type: 'varchar', length: '300' },
          { name: 'row_key', type: 'varchar', length: '2000' },
          { name: 'payload', type: 'text' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'attempts', type: 'integer', default: 0 },
          { name: 'next_attempt_at', type: 'varchar', length: '32' },
          { name: 'lease_until', type: 'varchar', length: '32', isNullable: true },
          { name: 'last_status_code', type: 'integer', isNullable: true },
          { name: 'last_error', type: 'varchar', length: '300', isNullable: true },
          { name: 'created_at', type: 'varchar', length: '32' },
          { name: 'delivered_at', type: 'varchar', length: '32', isNullable: true },
        ],
        indices: [
          new TableIndex({ columnNames: ['status', 'next_attempt_at'] }),
          new TableIndex({ columnNames: ['webhook_id', 'row_key', 'seq'] }),
          new TableIndex({ columnNames: ['webhook_id', 'seq'] }),
        ],
        foreignKeys: [appForeignKey.clone()],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('webhook_delivery');
    await q.dropTable('webhook_endpoint');
  }
}
