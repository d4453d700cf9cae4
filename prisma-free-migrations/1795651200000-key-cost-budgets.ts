import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * Per-key cost budgets (issue 28 item 4, CONTRACT.md §11 "Cost budgets"): the cost points a key may
 * spend per minute. Null for keys made before budgets existed: they get the platform default
 * (`API_KEY_POINTS_PER_MINUTE`) when they call.
 */
export class KeyCostBudgets1795651200000 implements MigrationInterface {
  name = 'KeyCostBudgets1795651200000';

  /** Adds `points_per_minute`, null on existing keys. */
  async up(q: QueryRunner): Promise<void> {
    await q.addColumn(
      'api_key',
      new TableColumn({ name: 'points_per_minute', type: 'integer', isNullable: true }),
    );
  }

  /** Drops `points_per_minute`. */
  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('api_key', 'points_per_minute');
  }
}
