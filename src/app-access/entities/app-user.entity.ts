import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A user of one app (CONTRACT.md §4). Only the Argon2id hash of the password is kept. */
@Entity('app_user')
export class AppUserEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) id: string;
  @Column({ name: 'app_id', type: 'varchar', length: 36 }) appId: string;
  @Column({ type: 'varchar', length: 320 }) email: string;
  @Column({ name: 'password_hash', type: 'varchar', length: 200 }) passwordHash: string;
  /** JSON array of role names. */
  @Column({ type: 'text' }) roles: string;
  /** JSON object of attribute values (`$user.<attribute>` in row rules). */
  @Column({ type: 'text' }) attributes: string;
  @Column({ type: 'boolean', default: false }) disabled: boolean;
  /** Sessions carry the epoch they were issued in; raising it ends them all. */
  @Column({ name: 'session_epoch', type: 'integer', default: 0 }) sessionEpoch: number;
  @Column({ name: 'created_at', type: 'varchar', length: 32 }) createdAt: string;
}
