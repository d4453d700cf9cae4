import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * Platform accounts' lifecycle (issue 22, item 6): a disabled switch, a token version carried in
 * every session (raising it ends all of the account's sessions), and the sessions ended one by one
 * at sign-out (JSON text: `[{sid, exp}]`, kept until each token would have expired anyway).
 */
export class AccountLifecycle1766102400000 implements MigrationInterface {
  name = 'AccountLifecycle1766102400000';

  /** Adds the three columns; existing accounts are enabled, at version 0, with no ended session. */
  async up(q: QueryRunner): Promise<void> {
    await q.addColumns('account', [
      new TableColumn({ name: 'disabled', type: 'boolean', default: false }),
      new TableColumn({ name: 'token_version', type: 'integer', default: 0 }),
      new TableColumn({ name: 'ended_sessions', type: 'text', default: "'[]'" }),
    ]);
  }

  /** Drops the three columns. */
  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('account', 'ended_sessions');
    await q.dropColumn('account', 'token_version');
    await q.dropColumn('account', 'disabled');
  }
}
