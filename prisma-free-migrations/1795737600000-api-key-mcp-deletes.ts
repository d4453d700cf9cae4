import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * The per-key switch for deletes through MCP (issue 28 item 3, README "Agents (MCP)"): a key
 * scope names apps and APIs but no actions, so `delete_row` is off unless the key was created
 * with `mcpDeletes: true` (Directus's "Allow Deletes", PEERS.md §F4). Existing keys: off.
 */
export class ApiKeyMcpDeletes1795737600000 implements MigrationInterface {
  name = 'ApiKeyMcpDeletes1795737600000';

  /** Adds `mcp_deletes`, false on existing keys. */
  async up(q: QueryRunner): Promise<void> {
    await q.addColumn(
      'api_key',
      new TableColumn({ name: 'mcp_deletes', type: 'boolean', default: false }),
    );
  }

  /** Drops `mcp_deletes`. */
  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('api_key', 'mcp_deletes');
  }
}
