import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An app hosted by the platform, reachable at `/api/graphql/<address>` (CONTRACT.md §3, §6). */
@Entity('app')
export class AppEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) id: string;
  @Column({ type: 'varchar', length: 200 }) name: string;
  @Column({ type: 'varchar', length: 63 }) address: string;
  @Column({ type: 'varchar', length: 253, nullable: true }) domain: string | null;
  @Column({ name: 'created_at', type: 'varchar', length: 32 }) createdAt: string;
}
