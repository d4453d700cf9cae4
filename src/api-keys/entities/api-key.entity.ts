import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A platform API key (CONTRACT.md §5). Only the SHA-256 of the key is kept. */
@Entity('api_key')
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) id: string;
  @Column({ type: 'varchar', length: 200 }) name: string;
  @Column({ type: 'varchar', length: 12 }) prefix: string;
  @Column({ name: 'key_hash', type: 'varchar', length: 64 }) keyHash: string;
  /** JSON `[{appId, endpoints: "all" | [apiId…]}]`. */
  @Column({ type: 'text' }) scope: string;
  @Column({ type: 'varchar', length: 16 }) status: 'active' | 'revoked';
  @Column({ name: 'rate_limit_per_minute', type: 'integer' }) rateLimitPerMinute: number;
  /** Cost points per minute (README "Cost budgets"); null on keys made before budgets existed. */
  @Column({ name: 'points_per_minute', type: 'integer', nullable: true }) pointsPerMinute:
    number | null;
  /** Whether MCP's `delete_row` may be called with the key (README "Agents (MCP)"). */
  @Column({ name: 'mcp_deletes', type: 'boolean', default: false }) mcpDeletes: boolean;
  @Column({ name: 'expires_at', type: 'varchar', length: 32, nullable: true }) expiresAt:
    string | null;
  @Column({ name: 'last_used_at', type: 'varchar', length: 32, nullable: true })
  lastUsedAt: string | null;
  @Column({ name: 'revoked_at', type: 'varchar', length: 32, nullable: true }) revokedAt:
    string | null;
  @Column({ name: 'created_at', type: 'varchar', length: 32 }) createdAt: string;
}
