import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One version of an app's definitions: `slot = 'main'`, or a builder's working version
 * (`slot = <account id>`). `definition` is the JSON {@link VersionDefinition}; `revision` grows by
 * one with every change, in the same statement (docs/adr/0003).
 */
@Entity('app_version')
export class AppVersionEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) id: string;
  @Column({ name: 'app_id', type: 'varchar', length: 36 }) appId: string;
  @Column({ type: 'varchar', length: 36 }) slot: string;
  @Column({ type: 'integer' }) revision: number;
  @Column({ type: 'text' }) definition: string;
  @Column({ name: 'updated_at', type: 'varchar', length: 32 }) updatedAt: string;
}
